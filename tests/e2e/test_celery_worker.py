"""End to end on the Celery backend: RabbitMQ as the broker and real ``celery worker`` processes.

Like the RQ test, with TASK_BACKEND=celery (django-tasks-celery, Django 6's ``django.tasks``):
tasks go through RabbitMQ and run in Celery workers, on a virtual host of the test's own
(``celery_workers``).
"""

from __future__ import annotations

import random
import time

import pytest

from tests.e2e.celery_workers import celery_env, celery_worker_args, own_vhost
from tests.e2e.conftest import with_crash_settings
from tests.e2e.faults import assert_nothing_duplicated, record_trial
from tests.e2e.helpers import (
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
from tests.e2e.overlaps import (
    assert_each_pair_translated_once,
    start_two_runs_at_once,
    wait_for_runs,
)

pytestmark = pytest.mark.celery


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


def test_two_runs_started_at_once_on_celery_translate_each_pair_once(site_env, tmp_path):
    with own_vhost() as broker:
        env = with_crash_settings(celery_env(site_env, broker), tmp_path)
        manage(env, "seed_demo", "--pages", "30")
        pool = WorkerPool(env, size=3, command=celery_worker_args)
        try:
            start_two_runs_at_once(env)
            report = wait_for_runs(env, timeout=600)
        finally:
            pool.stop()
    assert_each_pair_translated_once(env, report)
