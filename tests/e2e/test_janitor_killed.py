"""A janitor killed mid-sweep, with every worker chain lost too: the run still finishes.

django-tasks' database backend leaves the killed janitor task RUNNING forever and its chain
is gone; nothing is queued any more. Watching the run (a status read) finds the janitor's
lease lapsed and re-arms it; its sweep restarts the run's workers on the one fresh worker.
"""

from __future__ import annotations

import signal

from tests.e2e.helpers import (
    manage,
    start_whole_site_run,
    start_workers,
    stop_workers,
    wait_for_run,
)

DROP_QUEUED_TASKS = """
from django_tasks_db.models import DBTaskResult
print(DBTaskResult.objects.filter(status="READY").delete()[0])
"""


def test_run_finishes_after_the_janitor_and_every_worker_chain_died(crash_env):
    crash_env["WBT_CRASH_AT"] = "janitor_sweep"
    manage(crash_env, "migrate", "--verbosity", "0")
    manage(crash_env, "seed_demo", "--pages", "20")
    start_whole_site_run(crash_env)
    (worker,) = start_workers(crash_env, 1)
    assert worker.wait(timeout=300) == -signal.SIGKILL, "the janitor crash point must fire"
    # Every chain is lost: nothing of the run is queued any more.
    manage(crash_env, "shell", "--no-imports", "-c", DROP_QUEUED_TASKS)

    workers = start_workers(crash_env, 1)
    try:
        summary = wait_for_run(crash_env, timeout=400)
    finally:
        stop_workers(workers)

    assert summary["status"] == "succeeded", summary
    assert summary["units"]["succeeded"] == summary["units_total"] > 0, summary
