"""PostgreSQL restarted twice mid-run under supervised ``db_worker`` processes.

A restart drops every connection: an idle ``db_worker`` exits (its loop does not survive it)
and is started again by the pool, as systemd's ``Restart=always`` would; the plugin's tasks
reconnect and give their claim back. The run ends ``succeeded``, no unit failed, nothing is
duplicated or paid twice.

This test stops the machine's PostgreSQL server: it runs on PostgreSQL whatever DATABASE_URL
says (its own database), once per CI run (the PostgreSQL part; .ci/run deselects it on SQLite).
The server is started again whatever happens.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tests.e2e.faults import assert_nothing_duplicated_or_paid_twice, record_trial, run_with_outages
from tests.e2e.helpers import WorkerPool, assert_run_is_whole, manage

# Each restart keeps the server down this long: longer than a lease (crash settings: 4 s), so
# claims are also taken over across it.
OUTAGE_SECONDS = 8
# Units ended before the first and the second restart (the run has about 190).
RESTART_AFTER_ENDED = (25, 90)


def postgres_ctl(action: str) -> None:
    version = sorted(os.listdir("/etc/postgresql"))[0]
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", action],
        check=True,
        timeout=120,
    )


def wait_for_postgres(timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while subprocess.run(["pg_isready", "-h", "127.0.0.1", "-q"], check=False).returncode:
        assert time.monotonic() < deadline, "PostgreSQL did not come back"
        time.sleep(0.5)


def restart_postgres(down_seconds: float) -> None:
    """Stop the server (fast: every session is cut), keep it down, start it again."""
    postgres_ctl("stop")
    try:
        time.sleep(down_seconds)
    finally:
        postgres_ctl("start")
        wait_for_postgres()


def test_postgres_restarted_twice_mid_run_fails_nothing(postgres_env, tmp_path: Path):
    manage(postgres_env, "seed_demo", "--pages", "50")
    pool, started = WorkerPool(postgres_env, size=3), time.monotonic()
    try:
        summary, restarts = run_with_outages(
            postgres_env, pool, lambda: restart_postgres(OUTAGE_SECONDS), RESTART_AFTER_ENDED
        )
    finally:
        pool.stop()
        wait_for_postgres()  # whatever failed, the server is up for what runs next
    record_trial(postgres_env, "PostgreSQL restarted twice", summary, started)
    print(f"{summary['units_total']} units, {pool.deaths} worker exits restarted")  # for -s
    assert restarts == 2, f"the run ended after {restarts} restart(s): make it longer"
    assert summary["units_total"] >= 150
    assert summary["units"]["failed"] == 0, summary
    assert_run_is_whole(postgres_env, summary)  # succeeded, no duplicate page, tree clean
    assert_nothing_duplicated_or_paid_twice(postgres_env)
