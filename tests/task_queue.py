"""The DummyBackend's queue, run in-process by the tests (see the ``task_queue`` fixture)."""

from __future__ import annotations

from wagtail_bulk_translate.compat import DummyBackend, task_backends

DUMMY_BACKEND = f"{DummyBackend.__module__}.{DummyBackend.__qualname__}"


class UnreachableBrokerBackend(DummyBackend):
    """A task backend whose broker is down: its client raises its own ConnectionError (redis'
    is no subclass of Python's), as saving a page does when it queues Wagtail's index tasks."""

    def enqueue(self, task, args, kwargs):
        import redis

        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379.")


UNREACHABLE_BROKER = f"{__name__}.UnreachableBrokerBackend"


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

    def plugin_names(self) -> list[str]:
        """Names of this plugin's queued tasks (Wagtail queues its own indexing tasks too)."""
        return [
            result.task.name
            for result in self.backend.results
            if result.task.module_path.startswith("wagtail_bulk_translate.")
        ]

    def run_first(self, name: str):
        """Run the first queued task called ``name`` (others stay queued, in order)."""
        results = self.backend.results
        index = next(i for i, result in enumerate(results) if result.task.name == name)
        result = results.pop(index)
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
