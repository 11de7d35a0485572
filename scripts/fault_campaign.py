"""The fault campaign behind `make faults`: each fault test run N times, figures in a table.

Each trial is one pytest run of a fault test with ``WBT_FAULT_RECORD`` set: the test appends
what its run ended with (see ``tests/e2e/faults.py``). A trial whose test failed or stalled
before its run ended counts as not succeeded. The table goes to stdout and to
``benchmarks/results/faults.md`` (docs/how-to/workers-in-production.md copies its table).

    python scripts/fault_campaign.py --trials 5 [--fault sigkill --fault redis ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "faults.md"
POSTGRES_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")


@dataclass(frozen=True)
class Fault:
    name: str
    test: str
    database_url: str | None  # None: SQLite


FAULTS = {
    "sigkill": Fault(
        "random SIGKILLs, 3 workers",
        "tests/e2e/test_crashes.py::test_random_sigkills_with_three_workers",
        POSTGRES_URL,
    ),
    "postgres": Fault(
        "PostgreSQL restarted twice",
        "tests/e2e/test_database_restart.py",
        POSTGRES_URL,
    ),
    "cut-off": Fault(
        "a worker cut off for 3 leases",
        "tests/e2e/test_worker_cut_off.py::test_worker_cut_off_from_the_database_for_three_leases",
        POSTGRES_URL,
    ),
    "redis": Fault(
        "Redis restarted twice (RQ)",
        "tests/e2e/test_broker_restart.py::test_redis_restarted_twice_mid_run_under_rq_workers_fails_nothing",
        POSTGRES_URL,
    ),
    "rabbitmq": Fault(
        "RabbitMQ restarted twice (Celery)",
        "tests/e2e/test_broker_restart.py::test_rabbitmq_restarted_twice_mid_run_under_celery_workers_fails_nothing",
        POSTGRES_URL,
    ),
    "celery-sigkill": Fault(
        "random SIGKILLs, 3 Celery workers",
        "tests/e2e/test_celery_worker.py::test_random_sigkills_of_celery_workers_lose_nothing",
        POSTGRES_URL,
    ),
}


def run_trial(fault: Fault, record: Path, seed: int) -> bool:
    env = {**os.environ, "WBT_FAULT_RECORD": str(record), "WBT_CHAOS_SEED": str(seed)}
    env.pop("DATABASE_URL", None)
    if fault.database_url:
        env["DATABASE_URL"] = fault.database_url
    command = [sys.executable, "-m", "pytest", fault.test, "-q", "-p", "no:cacheprovider"]
    return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode == 0


def campaign(keys: list[str], trials: int) -> list[dict]:
    rows = []
    for key in keys:
        fault = FAULTS[key]
        with tempfile.TemporaryDirectory() as directory:
            record = Path(directory) / "trials.jsonl"
            passed, started = 0, time.monotonic()
            for trial in range(trials):
                print(f"--- {fault.name}: trial {trial + 1}/{trials}", flush=True)
                passed += run_trial(fault, record, seed=20261207 + trial)
            lines = record.read_text().splitlines() if record.exists() else []
        rows.append(summarise(fault, trials, passed, [json.loads(line) for line in lines]))
        print(f"--- {fault.name}: {time.monotonic() - started:.0f} s", flush=True)
    return rows


def summarise(fault: Fault, trials: int, passed: int, records: list[dict]) -> dict:
    seconds = sorted(record["seconds"] for record in records)
    return {
        "fault": fault.name,
        "database": "PostgreSQL" if fault.database_url else "SQLite",
        "trials": trials,
        "succeeded": passed,
        "units": sum(record["units"] for record in records),
        "failed_units": sum(record["failed_units"] for record in records),
        "duplicates": sum(record["duplicates"] for record in records),
        "texts_resent": sum(record["texts_resent"] for record in records),
        "seconds": f"{seconds[0]:.0f}-{seconds[-1]:.0f}" if seconds else "-",
    }


def table(rows: list[dict]) -> str:
    head = (
        "| fault | database | trials | succeeded | units | failed units | duplicates "
        "| texts re-sent | seconds per trial |\n|---|---|---|---|---|---|---|---|---|\n"
    )
    return head + "".join(
        f"| {r['fault']} | {r['database']} | {r['trials']} | {r['succeeded']} | {r['units']} "
        f"| {r['failed_units']} | {r['duplicates']} | {r['texts_resent']} | {r['seconds']} |\n"
        for r in rows
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3, help="trials per fault (default 3)")
    parser.add_argument(
        "--fault", action="append", choices=sorted(FAULTS), help="only this fault (repeatable)"
    )
    args = parser.parse_args()
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    rows = campaign(args.fault or list(FAULTS), args.trials)
    text = table(rows)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(f"Fault campaign, {time.strftime('%Y-%m-%d')}\n\n{text}")
    print(text)
    return 0 if all(row["succeeded"] == row["trials"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
