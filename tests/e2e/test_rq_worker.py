"""End to end on the RQ backend: the demo site, the CLI and two real ``rqworker`` processes.

Like test_db_worker, with TASK_BACKEND=rq: tasks go through Redis (django-tasks-rq) and run
in RQ workers, on a Redis database of the test's own (``rq_workers``).
"""

from __future__ import annotations

import uuid

import pytest

from tests.e2e.helpers import (
    assert_site_translated,
    manage,
    start_whole_site_run,
    stop_workers,
    wait_for_run,
)
from tests.e2e.rq_workers import claimed_redis_db, start_rq_worker, worker_logs

pytestmark = pytest.mark.rq


def test_whole_site_translates_with_rq_workers(site_env, tmp_path):
    import redis

    with claimed_redis_db() as redis_url:
        run_site_translation_on_rq(
            {**site_env, "TASK_BACKEND": "rq", "REDIS_URL": redis_url}, tmp_path
        )
        # The tasks did go through RQ: its finished jobs are still in this Redis database.
        with redis.Redis.from_url(redis_url) as client:
            assert any(client.scan_iter(match="rq:job:*", count=1000)), "no RQ job in Redis"


def run_site_translation_on_rq(env, tmp_path):
    manage(env, "migrate", "--verbosity", "0")
    manage(env, "seed_demo", "--pages", "24")
    prefix = f"e2e-{uuid.uuid4().hex[:8]}"
    workers = [
        start_rq_worker(env, f"{prefix}-{i}", tmp_path / f"rqworker-{i}.log") for i in range(2)
    ]
    try:
        start_whole_site_run(env)
        try:
            summary = wait_for_run(env)
        except AssertionError as err:
            exited = [w.returncode for w in workers if w.poll() is not None]
            raise AssertionError(
                f"{err}\nworkers that exited: {exited}\n{worker_logs(tmp_path)}"
            ) from err
    finally:
        stop_workers(workers, timeout=60)
    assert summary["status"] == "succeeded", f"{summary}\n{worker_logs(tmp_path)}"
    assert summary["units"]["failed"] == 0
    assert summary["units"]["succeeded"] == summary["units_total"] > 0
    assert_site_translated(env, ("fr", "de"))
