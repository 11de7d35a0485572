"""Concurrency promises kept by real processes: duplicate coordinator deliveries, and two runs
started on the same scope at the same moment.

Each test gets its own database (see conftest.py) and real ``db_worker`` processes.
"""

from __future__ import annotations

from tests.e2e.helpers import (
    assert_site_translated,
    manage,
    start_whole_site_run,
    start_workers,
    stop_workers,
    wait_for_run,
)
from tests.e2e.overlaps import (
    assert_each_pair_translated_once,
    start_two_runs_at_once,
    units_report,
    wait_for_runs,
)

DELIVER_COORDINATOR_AGAIN = """
from wagtail_bulk_translate import schedule
from wagtail_bulk_translate.models import Run
run = Run.objects.get()
schedule.enqueue("coordinate_run", run.pk)
schedule.enqueue("coordinate_run", run.pk)
"""


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
        start_two_runs_at_once(crash_env)
        report = wait_for_runs(crash_env, timeout=600)
    finally:
        stop_workers(workers)

    assert_each_pair_translated_once(crash_env, report)
