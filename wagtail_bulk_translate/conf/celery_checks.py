"""System check of a Celery task backend (django-tasks-celery): what runs rely on from Celery.

Runs survive lost tasks (the unit table, not the queue, is the source of truth), but Celery's
defaults lose more than they need to: a task is acknowledged when a worker takes it, so a
worker killed mid-task loses it, and each worker reserves four tasks ahead, which wait behind
its current one (a worker task runs for ``WORKER_TIME_BUDGET_SECONDS``) while other workers
idle. Neither is fatal; both slow a run down after a crash, so a warning says what to set.
"""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.utils.module_loading import import_string

from ..compat import InvalidTaskBackend, task_backends
from .settings import get_settings

CELERY_BACKEND_MODULE = "django_tasks_celery"


def celery_app(backend: Any) -> Any:
    path = (getattr(backend, "options", None) or {}).get("CELERY_APP")
    if path:
        return import_string(path)
    from celery import current_app

    return current_app._get_current_object()


def celery_problems(conf: Any) -> list[str]:
    problems = []
    if not conf.task_acks_late:
        problems.append("task_acks_late is off (a killed worker loses the task it was running)")
    if (conf.worker_prefetch_multiplier or 0) != 1:
        problems.append(
            f"worker_prefetch_multiplier is {conf.worker_prefetch_multiplier} (tasks wait behind "
            "a busy worker while others idle)"
        )
    return problems


@checks.register()
def check_celery(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    try:
        backend = task_backends[get_settings().TASK_BACKEND]
    except (InvalidTaskBackend, KeyError):
        return []  # check_task_backend reports it
    if not type(backend).__module__.startswith(CELERY_BACKEND_MODULE):
        return []
    try:
        problems = celery_problems(celery_app(backend).conf)
    except Exception:  # django-tasks-celery's own check reports an unusable app
        return []
    if not problems:
        return []
    return [
        checks.Warning(
            f"The Celery task backend lacks what runs rely on: {'; '.join(problems)}.",
            hint="Set CELERY_TASK_ACKS_LATE = True, CELERY_TASK_REJECT_ON_WORKER_LOST = True and "
            "CELERY_WORKER_PREFETCH_MULTIPLIER = 1 (see docs/how-to/celery.md).",
            id="wagtail_bulk_translate.W010",
        )
    ]
