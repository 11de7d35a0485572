"""Celery for the end-to-end tests: a RabbitMQ virtual host of the test's own, real workers.

Workers run with ``--pool solo`` (one process each, so a SIGKILL kills the whole worker, as
systemd's ``KillMode=mixed`` would). Each test gets a virtual host made for it and deleted
afterwards, so runs and concurrent test sessions never see each other's messages. RabbitMQ must
be up: the test fails, it does not skip, when it is not.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from contextlib import contextmanager

import pytest

from tests.e2e.helpers import ROOT

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
