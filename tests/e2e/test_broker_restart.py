"""Brokers restarted twice mid-run: Redis under ``rqworker``s, RabbitMQ under Celery workers.

The machine's Redis keeps nothing on disk (``--save "" --appendonly no``, as many caches do): a
restart loses every queued job, the janitor's chain and its guards with them, and cuts every
worker's connection. A worker that loses Redis exits and is started again by the pool, as
systemd's ``Restart=always`` would. What the broker lost is rebuilt from the unit table: the
janitor's chain is re-armed by the first status read that finds its lease lapsed (an editor on
the run page, ``bulk_translate status``) or by the janitor sidecar the README advises on such a
broker (``bulk_translate_janitor --loop``, which this test runs beside the workers); it returns
expired claims and queues the worker chains the run is missing. The run ends ``succeeded``, no
unit failed, nothing is duplicated or paid twice.

RabbitMQ keeps its durable queues and persistent messages across a restart (its application
stopped and started again, as an upgrade does): Celery's workers reconnect by themselves, and a
save or a task queued while it is down is retried (the unit) or re-armed (the chain).

These tests restart the machine's Redis and RabbitMQ: they run once per CI run, in the RQ and
Celery parts.
"""

from __future__ import annotations

import subprocess
import time

import pytest

from tests.e2e.celery_workers import celery_env, celery_worker_args, own_vhost, rabbitmqctl
from tests.e2e.conftest import with_crash_settings
from tests.e2e.faults import assert_nothing_duplicated_or_paid_twice, record_trial, run_with_outages
from tests.e2e.helpers import MANAGE, ROOT, WorkerPool, assert_run_is_whole, manage
from tests.e2e.rq_workers import claimed_redis_db, rq_worker_args

REDIS = ["redis-cli", "-h", "127.0.0.1", "-p", "6379"]
START_REDIS = ["redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", "6379",
               "--save", "", "--appendonly", "no"]  # fmt: skip
# Each restart keeps Redis down longer than a lease (crash settings: 4 s).
OUTAGE_SECONDS = 6
# Units ended before the first and the second restart (the run has about 110).
RESTART_AFTER_ENDED = (15, 55)
# The janitor sidecar's interval: 60 s in the README; shorter here, so the test does not wait a
# minute per outage.
SIDECAR_SECONDS = 10


def redis_is_up() -> bool:
    return subprocess.run([*REDIS, "ping"], capture_output=True, check=False).returncode == 0


def wait_for_redis(timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not redis_is_up():
        assert time.monotonic() < deadline, "Redis did not come back"
        time.sleep(0.2)


def restart_redis(down_seconds: float) -> None:
    """Shut Redis down without saving (every job is gone), keep it down, start it again."""
    subprocess.run([*REDIS, "shutdown", "nosave"], capture_output=True, check=False, timeout=30)
    try:
        deadline = time.monotonic() + 30
        while redis_is_up():
            assert time.monotonic() < deadline, "Redis did not shut down"
            time.sleep(0.2)
        time.sleep(down_seconds)
    finally:
        if not redis_is_up():
            subprocess.run(START_REDIS, check=True, timeout=30)
        wait_for_redis()


class PoolWithSidecar(WorkerPool):
    """``workers`` workers and the janitor sidecar (``bulk_translate_janitor --loop``) the README
    advises beside a broker that loses queued tasks, all started again when they exit."""

    def __init__(self, env: dict, workers: int, command) -> None:
        super().__init__(env, workers + 1, command=command)

    def spawn(self, index: int) -> subprocess.Popen:
        if index:
            return super().spawn(index)
        return subprocess.Popen(
            [*MANAGE, "bulk_translate_janitor", "--loop", str(SIDECAR_SECONDS)],
            env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip


FAILED_UNITS = """
from wagtail_bulk_translate.models import Unit
for u in Unit.objects.filter(status="failed"):
    print(u.pk, u.attempts, u.error_code, u.error_message[:300])
"""


def failed_units(env) -> str:
    return manage(env, "shell", "--no-imports", "-c", FAILED_UNITS).stdout


@pytest.mark.rq
def test_redis_restarted_twice_mid_run_under_rq_workers_fails_nothing(site_env, tmp_path):
    with claimed_redis_db() as redis_url:
        env = with_crash_settings(
            {**site_env, "TASK_BACKEND": "rq", "REDIS_URL": redis_url}, tmp_path
        )
        manage(env, "migrate", "--verbosity", "0")
        manage(env, "seed_demo", "--pages", "30")
        pool, started = PoolWithSidecar(env, 2, rq_worker_args), time.monotonic()
        try:
            summary, restarts = run_with_outages(
                env, pool, lambda: restart_redis(OUTAGE_SECONDS), RESTART_AFTER_ENDED
            )
        finally:
            pool.stop()
            wait_for_redis()  # whatever failed, Redis is up for what runs next
    record_trial(env, "Redis restarted twice (RQ)", summary, started)
    print(f"{summary['units_total']} units, {pool.deaths} worker exits restarted")  # for -s
    assert restarts == 2, f"the run ended after {restarts} restart(s): make it longer"
    assert summary["units"]["failed"] == 0, failed_units(env)
    assert_run_is_whole(env, summary)  # succeeded, no duplicate page, tree clean
    assert_nothing_duplicated_or_paid_twice(env)


def restart_rabbitmq(down_seconds: float) -> None:
    """Stop RabbitMQ's application (every connection is cut), keep it down, start it again."""
    rabbitmqctl("stop_app")
    try:
        time.sleep(down_seconds)
    finally:
        started = rabbitmqctl("start_app")
        assert started.returncode == 0, started.stderr
        rabbitmqctl("await_startup")


@pytest.mark.celery
def test_rabbitmq_restarted_twice_mid_run_under_celery_workers_fails_nothing(site_env, tmp_path):
    with own_vhost() as broker:
        env = with_crash_settings(celery_env(site_env, broker), tmp_path)
        manage(env, "seed_demo", "--pages", "30")
        pool, started = PoolWithSidecar(env, 2, celery_worker_args), time.monotonic()
        try:
            summary, restarts = run_with_outages(
                env, pool, lambda: restart_rabbitmq(OUTAGE_SECONDS), RESTART_AFTER_ENDED
            )
        finally:
            pool.stop()
            rabbitmqctl("start_app")  # whatever failed, RabbitMQ is up for what runs next
    record_trial(env, "RabbitMQ restarted twice (Celery)", summary, started)
    assert restarts == 2, f"the run ended after {restarts} restart(s): make it longer"
    assert summary["units"]["failed"] == 0, failed_units(env)
    assert_run_is_whole(env, summary)  # succeeded, no duplicate page, tree clean
    assert_nothing_duplicated_or_paid_twice(env)
