"""One import point for the tasks API.

Django 6 ships ``django.tasks``; on Django 5.2 the same API comes from the ``django_tasks``
backport. The configured backend class decides which ``Task`` class a decorator returns, so the
plugin only ever imports from here.
"""

try:  # Django >= 6.0
    from django.tasks import TaskResultStatus, task, task_backends
    from django.tasks.backends.dummy import DummyBackend
    from django.tasks.backends.immediate import ImmediateBackend
    from django.tasks.exceptions import InvalidTaskBackend
except ImportError:  # Django 5.2 with the django-tasks backport (the type checker runs on 6)
    from django_tasks import TaskResultStatus, task, task_backends  # type: ignore[assignment,no-redef]
    from django_tasks.backends.dummy import DummyBackend  # type: ignore[assignment]
    from django_tasks.backends.immediate import ImmediateBackend  # type: ignore[assignment]
    from django_tasks.exceptions import (  # type: ignore[assignment]
        InvalidTaskBackendError as InvalidTaskBackend,
    )

__all__ = [
    "DummyBackend",
    "ImmediateBackend",
    "InvalidTaskBackend",
    "TaskResultStatus",
    "task",
    "task_backends",
]
