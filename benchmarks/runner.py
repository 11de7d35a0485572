"""The runner: seed a template site once, run each benchmark in its own process against its
own copy of it, print the table and write ``benchmarks/results/latest.json``.

    python -m benchmarks [--pages 2000] [--locales 4] [--sample 100] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from importlib import import_module
from pathlib import Path
from typing import Any

from .harness import ROOT, Config, Result, process_environment, setup_django
from .report import format_table

BENCHMARKS = [
    "enumeration",
    "first_translation",
    "billing",
    "changed_rerun",
    "scaling",
    "memory",
    "status_api",
    "revert_canary",
    "token_spend",
    "sync",
    "full_requests",
    "batch_price",
]
# Benchmarks that create their own database (the others get a copy of the seeded template).
OWN_DATABASE = {"scaling"}
OUTPUT = ROOT / "benchmarks" / "results" / "latest.json"
TEMPLATE = "template.sqlite3"


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--pages", type=int, default=2000, help="pages of the site (N)")
    parser.add_argument("--locales", type=int, default=4, help="target locales (1-8)")
    parser.add_argument(
        "--sample",
        type=int,
        default=None,
        help="pages translated by the side-by-side translation benchmarks "
        "(default: pages / 40, at least 20)",
    )
    parser.add_argument(
        "--status-units", type=int, default=100_000, help="units of the large run of benchmark 7"
    )
    parser.add_argument("--only", action="append", choices=BENCHMARKS, help="repeatable")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument(
        "--postgres",
        default="postgres://postgres@127.0.0.1:5432/postgres",
        help="a PostgreSQL server for the scaling benchmark (bench_* databases are created)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    if args.child:
        return run_child(args.child, Config(**json.loads(args.config)))
    names = args.only or BENCHMARKS
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-") as workdir:
        config = Config(
            pages=args.pages,
            locales=args.locales,
            sample=args.sample or max(20, args.pages // 40),
            status_units=args.status_units,
            workdir=workdir,
            database_url=args.postgres,
        )
        print(f"Seeding a {config.pages}-page site ...", end=" ", file=sys.stderr, flush=True)
        began = time.monotonic()
        if spawn_process("seed", config) != 0:
            print("Seeding the site failed.", file=sys.stderr)
            return 1
        print(f"{time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
        results: list[dict[str, Any]] = []
        for name in names:
            print(f"Running {name} ...", end=" ", file=sys.stderr, flush=True)
            began = time.monotonic()
            results.extend(spawn(name, config))
            print(f"{time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
    document = {
        "machine": machine(),
        "arguments": {
            "pages": config.pages,
            "locales": config.locales,
            "sample": config.sample,
            "status_units": config.status_units,
        },
        "seconds": round(time.monotonic() - started, 1),
        "results": results,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(format_table(document))
    print(f"\nWritten to {args.output}", file=sys.stderr)
    return 0


def spawn(name: str, config: Config) -> list[dict[str, Any]]:
    """Run one benchmark in a fresh process: its own database, its own memory peak."""
    out = Path(config.workdir) / f"{name}.json"
    returncode = spawn_process(name, config)
    if returncode != 0 or not out.exists():
        return [failed_result(name, f"the benchmark process exited {returncode}")]
    return json.loads(out.read_text(encoding="utf-8"))


def spawn_process(name: str, config: Config) -> int:
    command = [sys.executable, "-m", "benchmarks", "--child", name]
    command += ["--config", json.dumps(asdict(config))]
    env = process_environment(str(Path(config.workdir) / TEMPLATE))
    return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode


def failed_result(name: str, why: str) -> dict[str, Any]:
    return Result(name, "not measured", 0, None, "", False, why).as_dict()


def run_child(name: str, config: Config) -> int:
    workdir = Path(config.workdir)
    if name == "seed":
        setup_django(str(workdir / TEMPLATE))
        seed(config)
        return 0
    if name not in OWN_DATABASE:
        database = workdir / f"{name}.sqlite3"
        shutil.copyfile(workdir / TEMPLATE, database)
        setup_django(str(database))
    results = import_module(f"benchmarks.{name}").run(config)
    payload = [result.as_dict() for result in results]
    (workdir / f"{name}.json").write_text(json.dumps(payload), encoding="utf-8")
    return 0


def seed(config: Config) -> None:
    """The template site: migrated, the demo content at ``pages`` pages, the target locales."""
    from django.core.management import call_command
    from django.db import connection

    from demo.content import ensure_admin_user, seed_demo_content

    from .harness import ALL_TARGETS, translate_structure

    call_command("migrate", verbosity=0)
    seed_demo_content(pages=config.pages)
    ensure_admin_user()
    translate_structure(sorted({*config.targets, *ALL_TARGETS[:3]}))
    with connection.cursor() as cursor:  # one self-contained file to copy
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()


def machine() -> dict[str, Any]:
    import os

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }
