"""End to end on the Celery backend: RabbitMQ as the broker and real ``celery worker`` processes.

Like the RQ test, with TASK_BACKEND=celery (django-tasks-celery, Django 6's ``django.tasks``):
tasks go through RabbitMQ and run in Celery workers (``--pool solo``: one process each, so a
SIGKILL kills the whole worker, as systemd's ``KillMode=mixed`` would). Each test gets a
RabbitMQ virtual host of its own, deleted afterwards, so runs and concurrent test sessions never
see each other's messages. RabbitMQ must be up: the test fails, it does not skip, when it is not.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager

import pytest

from tests.e2e.conftest import with_crash_settings
from tests.e2e.faults import assert_nothing_duplicated, record_trial
from tests.e2e.helpers import (
    ROOT,
    WorkerPool,
    assert_run_is_whole,
    assert_site_translated,
    manage,
    read_translator_log,
    run_with_pool,
    sent_twice,
    start_whole_site_run,
    wait_for_run,
)

pytestmark = pytest.mark.celery

BROKER = "amqp://guest:guest@127.0.0.1:5672/"


def rabbitmqctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["rabbitmqctl", *args], capture_output=True, text=True, timeout=120, check=False
    )


@contextmanager
def own_vhost():
    """The broker URL of a RabbitMQ virtual host made for this test alone."""
    name = f"wbt-e2e-{uuid.uuid4().hex[:8]}"
    made = rabbitmqctl("add_vhost", name)
    if made.returncode:
        pytest.fail(f"RabbitMQ is not reachable ({made.stderr.strip()[-300:]}): start it")
    rabbitmqctl("set_permissions", "-p", name, "guest", ".*", ".*", ".*")
    try:
        yield BROKER + name
    finally:
        rabbitmqctl("delete_vhost", name)


def celery_worker_args(name: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "sandbox", "worker",
            "--queues", "celery,bulk_translate", "--pool", "solo", "--hostname", f"{name}@e2e",
            "--without-gossip", "--without-mingle", "--loglevel", "WARNING"]  # fmt: skip


def celery_env(env: dict, broker: str) -> dict:
    return {**env, "TASK_BACKEND": "celery", "CELERY_BROKER_URL": broker,
            "PYTHONPATH": str(ROOT / "sandbox")}  # fmt: skip


def test_whole_site_translates_with_celery_workers(site_env):
    with own_vhost() as broker:
        env = celery_env(site_env, broker)
        manage(env, "seed_demo", "--pages", "24")
        pool = WorkerPool(env, size=2, command=celery_worker_args)
        try:
            start_whole_site_run(env)
            summary = wait_for_run(env)
        finally:
            pool.stop()
    assert summary["status"] == "succeeded", summary
    assert summary["units"]["failed"] == 0
    assert summary["units"]["succeeded"] == summary["units_total"] > 0
    assert_site_translated(env, ("fr", "de"))


def test_random_sigkills_of_celery_workers_lose_nothing(site_env, tmp_path):
    with own_vhost() as broker:
        env = with_crash_settings(celery_env(site_env, broker), tmp_path)
        manage(env, "seed_demo", "--pages", "30")
        pool = WorkerPool(env, size=3, command=celery_worker_args)
        started = time.monotonic()
        try:
            summary = run_with_pool(env, pool, timeout=400, chaos=random.Random(20261207))
        finally:
            pool.stop()
    record_trial(env, "random SIGKILLs, 3 Celery workers", summary, started)
    assert pool.deaths >= 2, "the chaos loop must have killed workers"
    assert_run_is_whole(env, summary)  # succeeded, no duplicate page, tree clean
    assert_nothing_duplicated(env)
    log = read_translator_log(env["translator_log"])
    assert sent_twice(log, killed=pool.killed) == []
