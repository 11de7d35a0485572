"""Shared fixtures: a task queue the tests drain by hand, and the demo site's locales."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from wagtail_bulk_translate.compat import DummyBackend, task_backends

DUMMY_BACKEND = f"{DummyBackend.__module__}.{DummyBackend.__qualname__}"


class TaskQueue:
    """The DummyBackend's queue, executed in-process in FIFO order on demand.

    Tests see exactly which tasks the engine enqueued, and can run them one at a time (to
    interrupt a coordinator between ticks) or all (``drain``).
    """

    def __init__(self, capture_on_commit) -> None:
        self.capture_on_commit = capture_on_commit

    @property
    def backend(self):
        return task_backends["default"]

    def pending(self) -> list:
        return list(self.backend.results)

    def names(self) -> list[str]:
        return [result.task.name for result in self.backend.results]

    def pop(self):
        result = self.backend.results.pop(0)
        return result

    def run_next(self):
        result = self.pop()
        if not result.task.module_path.startswith("wagtail_bulk_translate."):
            # Wagtail's own tasks (search index updates) are not what these tests check, and
            # may refer to rows a rolled-back transaction never kept.
            return None
        with self.capture_on_commit(execute=True):
            return result.task.func(*result.args, **result.kwargs)

    def drain(self, max_tasks: int = 10_000) -> int:
        executed = 0
        while self.backend.results:
            if executed >= max_tasks:
                raise AssertionError(f"Task queue did not drain after {max_tasks} tasks")
            self.run_next()
            executed += 1
        return executed

    def clear(self) -> None:
        self.backend.clear()


@pytest.fixture
def task_queue(settings, django_capture_on_commit_callbacks):
    settings.TASKS = {"default": {"BACKEND": DUMMY_BACKEND, "QUEUES": []}}
    queue = TaskQueue(django_capture_on_commit_callbacks)
    queue.clear()
    yield queue
    queue.clear()


@pytest.fixture
def count_queries():
    def counter():
        return CaptureQueriesContext(connection)

    return counter


@pytest.fixture
def start(task_queue, django_capture_on_commit_callbacks):
    """start_run() as an editor would call it, with its on-commit enqueue captured."""
    from wagtail_bulk_translate.api import start_run

    def _start(**kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return start_run(**kwargs)

    return _start


@pytest.fixture
def recording_translator(settings):
    """Runs started in this test use RecordingTranslator (pseudo output, calls recorded)."""
    from tests.translators import RecordingTranslator, translator_setting

    RecordingTranslator.reset()
    settings.WAGTAIL_BULK_TRANSLATE = {
        **getattr(settings, "WAGTAIL_BULK_TRANSLATE", {}),
        "TRANSLATOR": translator_setting(),
    }
    yield RecordingTranslator
    RecordingTranslator.reset()
