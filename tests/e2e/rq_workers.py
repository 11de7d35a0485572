"""RQ for the end-to-end tests: a Redis database of the test's own, real ``rqworker`` processes.

Each test claims a Redis database and empties it before and after, so runs (and concurrent
test sessions) never see each other's jobs. Redis must be up: the test fails, it does not skip,
when it is not.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from contextlib import contextmanager

import pytest

from tests.e2e.helpers import MANAGE, ROOT

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
CLAIM_KEY = "wagtail_bulk_translate:e2e:claim"


def redis_server_url() -> str:
    """REDIS_URL without a database number: the test picks the database."""
    scheme, rest = REDIS_URL.split("://", 1)
    return f"{scheme}://{rest.split('/', 1)[0]}"


@contextmanager
def claimed_redis_db():
    """The URL of a Redis database claimed for this test alone, empty, emptied again after.

    Not a fixture: Redis being down must fail the test itself, not error in its set-up.
    """
    import redis

    server = redis_server_url()
    try:
        redis.Redis.from_url(server, socket_connect_timeout=5).ping()
    except redis.exceptions.ConnectionError as err:
        pytest.fail(f"Redis is not reachable at {server} ({err}): the RQ end-to-end test needs it")
    claim, client = uuid.uuid4().hex, None
    # Database 0 is left to people's own use (`make serve` with TASK_BACKEND=rq).
    for number in range(1, 16):
        candidate = redis.Redis.from_url(f"{server}/{number}")
        try:
            if candidate.set(CLAIM_KEY, claim, nx=True, ex=3600):
                client = candidate
                break
        except redis.exceptions.ResponseError:  # the server has fewer databases
            candidate.close()
            break
        candidate.close()
    if client is None:
        pytest.fail("No free Redis database: 1-15 are all claimed by other test runs")
    # Whatever a crashed earlier run left there goes; the claim stays.
    for key in client.scan_iter(count=1000):
        if key != CLAIM_KEY.encode():
            client.delete(key)
    try:
        yield f"{server}/{number}"
    finally:
        client.flushdb()
        client.close()


def rq_worker_args(name: str) -> list[str]:
    """A long-running worker (no --burst): it idles between tasks until stopped."""
    return [
        *MANAGE,
        "rqworker",
        "--job-class",
        "django_tasks_rq.Job",
        "--with-scheduler",  # moves deferred tasks (run_after) into their queue
        "--name",
        name,
        "--verbosity",
        "0",  # warnings and errors only
        "bulk_translate",
        "default",
    ]


def start_rq_worker(env, name: str, log_path) -> subprocess.Popen:
    """An RQ worker whose output goes to a file (a pipe nobody reads would fill up and block it)."""
    with open(log_path, "w") as log:
        return subprocess.Popen(
            rq_worker_args(name), env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log
        )


def worker_logs(log_dir) -> str:
    return "\n".join(
        f"--- {path.name} ---\n{path.read_text()[-3000:]}"
        for path in sorted(log_dir.glob("rqworker-*.log"))
    )
