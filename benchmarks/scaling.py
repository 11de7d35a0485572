"""Benchmark 5: throughput with 1, 2 and 4 worker processes on PostgreSQL.

A fresh ``bench_scaling_*`` PostgreSQL database holds a site of ``3 x sample / 2`` pages; three
runs translate disjoint thirds of it into every target locale with a translator that sleeps
200 ms per request, with 1, 2 and 4 real ``db_worker`` processes. Throughput is units per
second of wall time, from starting the run to seeing it finished.
"""

from __future__ import annotations

import json
import os
from urllib.parse import urlsplit, urlunsplit

from .harness import Config, Result, content_pages, pages_scope, setup_django, translate_structure

TARGET = 3.0
SLEEPING = json.dumps(
    {"CLASS": "benchmarks.translators.SleepingTranslator", "OPTIONS": {"SLEEP_SECONDS": 0.2}}
)
WORKER_COUNTS = (1, 2, 4)


def run(config: Config) -> list[Result]:
    try:
        import psycopg

        admin = psycopg.connect(config.database_url, autocommit=True)
    except Exception as error:  # any failure to connect: not measured
        return [not_measured(f"PostgreSQL not reachable at {config.database_url}: {error}")]
    name = f"bench_scaling_{os.getpid()}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        return measure_scaling(config, with_database(config.database_url, name))
    finally:
        from django.db import connections

        connections.close_all()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def measure_scaling(config: Config, url: str) -> list[Result]:
    os.environ["BENCH_TRANSLATOR"] = SLEEPING
    setup_django(url)
    from django.core.management import call_command

    from demo.content import ensure_admin_user, seed_demo_content

    from .workers import timed_run, worker_processes

    per_run = max(1, config.sample // 2)
    call_command("migrate", verbosity=0)
    seed_demo_content(pages=len(WORKER_COUNTS) * per_run + 10)
    ensure_admin_user()
    translate_structure(config.targets)
    pages = content_pages(len(WORKER_COUNTS) * per_run)
    throughput = {}
    for index, count in enumerate(WORKER_COUNTS):
        share = pages[index :: len(WORKER_COUNTS)]
        with worker_processes(url, count, SLEEPING):
            seconds, _run = timed_run(pages_scope(share), config.targets)
        throughput[count] = len(share) * len(config.targets) / seconds
    figures = ", ".join(f"{n} workers: {u:.2f} units/s" for n, u in throughput.items())
    return [
        Result(
            "5 scaling (PostgreSQL)",
            "units per second, 4 workers vs 1",
            round(throughput[4], 3),
            round(throughput[1], 3),
            f"ratio ≥ {TARGET}",
            throughput[4] >= TARGET * throughput[1],
            f"{figures}; {per_run} pages x {len(config.targets)} locales per run; "
            f"{os.cpu_count()} CPUs",
        ),
        Result(
            "5 scaling (PostgreSQL)",
            "units per second, 2 workers vs 1",
            round(throughput[2], 3),
            round(throughput[1], 3),
            "",
            None,
            "",
        ),
    ]


def not_measured(why: str) -> Result:
    return Result("5 scaling (PostgreSQL)", "units per second, 4 workers vs 1", 0, None,
                  f"ratio ≥ {TARGET}", None, why)  # fmt: skip
