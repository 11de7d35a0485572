"""A janitor killed between taking its lease and queuing its next sweep, with every worker chain
lost too: the run still finishes, and nobody has to watch it.

django-tasks' database backend leaves the killed janitor task RUNNING forever and its chain
is gone. The guard the janitor queued with its lease (a task due once that lease has lapsed)
finds it dead and takes over; its sweep restarts the run's workers on the one fresh worker. The
test reads the run's progress straight from the database: a status read would re-arm the
janitor itself, and hide a janitor that cannot recover alone.
"""

from __future__ import annotations

import json
import signal
import time

from tests.e2e.helpers import (
    manage,
    run_progress,
    start_whole_site_run,
    start_workers,
    stop_workers,
)

DROP_WORKER_CHAINS = """
from django_tasks_db.models import DBTaskResult
chains = ("process_units", "coordinate_run")
ready = DBTaskResult.objects.filter(status="READY")
print(sum(ready.filter(task_path__endswith=f".{name}").delete()[0] for name in chains))
"""

GUARDS_THAT_TOOK_OVER = """
from django_tasks_db.models import DBTaskResult
guards = DBTaskResult.objects.filter(task_path__endswith=".janitor_guard", status="SUCCESSFUL")
print(sum(1 for result in guards.values_list("return_value", flat=True) if result["ran"]))
"""


def test_run_finishes_after_the_janitor_and_every_worker_chain_died(crash_env):
    crash_env["WBT_CRASH_AT"] = "janitor_sweep"
    manage(crash_env, "seed_demo", "--pages", "20")
    start_whole_site_run(crash_env)
    (worker,) = start_workers(crash_env, 1)
    assert worker.wait(timeout=300) == -signal.SIGKILL, "the janitor crash point must fire"
    # Every worker chain is lost: none of the run's worker or coordinator tasks is queued.
    manage(crash_env, "shell", "--no-imports", "-c", DROP_WORKER_CHAINS)

    workers = start_workers(crash_env, 1)
    try:
        wait_unwatched(crash_env, timeout=400)
    finally:
        stop_workers(workers)

    summary = json.loads(manage(crash_env, "bulk_translate", "status", "--json").stdout)
    assert summary["status"] == "succeeded", summary
    assert summary["units"]["succeeded"] == summary["units_total"] > 0, summary
    took_over = manage(crash_env, "shell", "--no-imports", "-c", GUARDS_THAT_TOOK_OVER).stdout
    assert int(took_over) >= 1, "a guard must have taken the dead janitor over"


def wait_unwatched(env, timeout: float) -> None:
    """Wait for the run to end, reading it straight from the database (no status read)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, ended = run_progress(env)
        if status not in ("pending", "running"):
            return
        time.sleep(0.5)
    raise AssertionError(f"The run is still {status} after {timeout}s ({ended} units ended)")
