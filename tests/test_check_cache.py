"""The shared cache check: workers clear Wagtail's site root paths for the web process only
through a cache both processes see."""

from __future__ import annotations

import pytest

from tests.task_queue import DUMMY_BACKEND
from wagtail_bulk_translate.conf.deployment_checks import check_shared_cache

LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
DB_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}}
IMMEDIATE_TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


def test_per_process_cache_with_workers_in_other_processes_is_a_warning(settings):
    settings.TASKS = DB_TASKS
    settings.CACHES = LOCMEM

    [message] = check_shared_cache()

    assert message.id == "wagtail_bulk_translate.W008"
    assert "LocMemCache" in message.msg
    assert "DatabaseCache" in message.hint and "docs/getting-started.md" in message.hint


def test_a_shared_cache_is_fine(settings, tmp_path):
    settings.TASKS = DB_TASKS
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path),
        }
    }

    assert check_shared_cache() == []


@pytest.mark.parametrize("tasks", [IMMEDIATE_TASKS, {"default": {"BACKEND": DUMMY_BACKEND}}])
def test_work_in_the_web_process_needs_no_shared_cache(settings, tasks):
    settings.TASKS = tasks
    settings.CACHES = LOCMEM

    assert check_shared_cache() == []
