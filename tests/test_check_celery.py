"""The Celery check: what a Celery setup needs for runs to lose as little as possible."""

from __future__ import annotations

import pytest

celery = pytest.importorskip("celery", reason="django-tasks-celery needs Python 3.12+")

from wagtail_bulk_translate.conf.celery_checks import check_celery  # noqa: E402

APP = f"{__name__}.app"
app = celery.Celery("check-test")
CELERY_TASKS = {
    "default": {"BACKEND": "django_tasks_celery.CeleryBackend", "OPTIONS": {"CELERY_APP": APP}}
}


@pytest.fixture
def conf(settings):
    settings.TASKS = CELERY_TASKS
    previous = dict(app.conf)
    yield app.conf
    app.conf.update(previous)


def test_celerys_defaults_are_a_warning_that_says_what_to_set(conf):
    conf.task_acks_late, conf.worker_prefetch_multiplier = False, 4

    [message] = check_celery()

    assert message.id == "wagtail_bulk_translate.W010"
    assert "task_acks_late is off" in message.msg
    assert "worker_prefetch_multiplier is 4" in message.msg
    assert "CELERY_TASK_ACKS_LATE = True" in message.hint


def test_acks_late_and_one_task_at_a_time_are_fine(conf):
    conf.task_acks_late, conf.worker_prefetch_multiplier = True, 1

    assert check_celery() == []


def test_other_backends_are_not_checked(settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}}

    assert check_celery() == []
