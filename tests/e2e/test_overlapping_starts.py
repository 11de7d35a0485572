"""Concurrency promises kept by real processes: duplicate coordinator deliveries, and two runs
started on the same scope at the same moment.

Each test gets its own database (see conftest.py) and real ``db_worker`` processes.
"""

from __future__ import annotations

import json
import subprocess
import time

from tests.e2e.helpers import (
    INTEGRITY_REPORT,
    MANAGE,
    ROOT,
    assert_site_translated,
    manage,
    start_whole_site_run,
    start_workers,
    stop_workers,
    wait_for_run,
)

DELIVER_COORDINATOR_AGAIN = """
from wagtail_bulk_translate import schedule
from wagtail_bulk_translate.models import Run
run = Run.objects.get()
schedule.enqueue("coordinate_run", run.pk)
schedule.enqueue("coordinate_run", run.pk)
"""

UNITS = """
import json
from wagtail_bulk_translate.models import Run, Unit
print(json.dumps({
    "runs": {r.pk: r.status for r in Run.objects.all()},
    "units": [
        [u.run_id, str(u.object_key), u.target_locale.language_code, u.status, u.error_code,
         u.error_message]
        for u in Unit.objects.select_related("target_locale")
    ],
}))
"""


def units_report(env) -> dict:
    return json.loads(manage(env, "shell", "--no-imports", "-c", UNITS).stdout)


def test_three_deliveries_of_one_coordinator_create_each_unit_once(crash_env):
    manage(crash_env, "seed_demo", "--pages", "40")
    start_whole_site_run(crash_env)
    manage(crash_env, "shell", "--no-imports", "-c", DELIVER_COORDINATOR_AGAIN)

    workers = start_workers(crash_env, 3)  # all three pick up a delivery at once
    try:
        summary = wait_for_run(crash_env, timeout=600)
    finally:
        stop_workers(workers)

    assert summary["status"] == "succeeded", summary
    units = units_report(crash_env)["units"]
    pairs = [(key, code) for _run, key, code, *_ in units]
    assert len(pairs) == len(set(pairs)) == summary["units_total"]
    assert summary["units"]["succeeded"] == summary["units_total"]
    assert_site_translated(crash_env, ("fr", "de"))  # enumeration missed nothing either


def test_two_starts_at_the_same_moment_translate_each_pair_once(crash_env):
    manage(crash_env, "seed_demo", "--pages", "40")
    workers = start_workers(crash_env, 3)
    try:
        start = [*MANAGE, "bulk_translate", "start", "--all", "--locales", "fr,de"]
        starts = [
            subprocess.Popen([*start, "--mode", "refresh"], env=crash_env, cwd=ROOT)
            for _ in range(2)
        ]
        assert [s.wait(timeout=300) for s in starts] == [0, 0]
        report = wait_for_runs(crash_env, timeout=600)
    finally:
        stop_workers(workers)

    assert sorted(report["runs"].values()) == ["succeeded", "succeeded"], report["runs"]
    written = [
        (key, code) for _run, key, code, status, *_ in report["units"] if status == "succeeded"
    ]
    assert len(written) == len(set(written)), "a pair was translated by both runs"
    every_pair = {(key, code) for _run, key, code, *_ in report["units"]}
    assert set(written) == every_pair, "a pair was translated by neither run"
    skipped = [unit for unit in report["units"] if unit[3] == "skipped"]
    assert skipped, "the runs did not overlap"
    for _run, _key, _code, _status, error_code, message in skipped:
        assert error_code == "duplicate_in_flight"
        assert "run" in message.lower()
    integrity = json.loads(
        manage(crash_env, "shell", "--no-imports", "-c", INTEGRITY_REPORT).stdout
    )
    assert integrity == {"duplicate_pages": [], "running_units": 0, "tree_problems": [0] * 5}


def wait_for_runs(env, timeout: float) -> dict:
    """Every run ended; the bound is generous (a loaded machine runs them slowly)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        report = units_report(env)
        if report["runs"] and not {"pending", "running"} & set(report["runs"].values()):
            return report
        time.sleep(1)
    raise AssertionError(f"The runs did not finish in {timeout}s: {report['runs']}")
