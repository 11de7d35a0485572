"""The task backend's broker unreachable while a unit is written (Redis, RabbitMQ restarting).

Saving a page queues Wagtail's own tasks (search and reference indexes) from its signal
handlers, inside the unit's transaction: with the broker down, the save raises the broker
client's connection error and the transaction rolls back, so nothing was written. Nothing is
wrong with the unit either: it is retried after a back-off, like a translator timeout. Which
client raised (redis, kombu, amqp...) does not matter; that it was raised while queueing a task
does, and the traceback says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType

# The modules whose Task.enqueue every backend's enqueue goes through.
TASK_API_MODULES = frozenset({"django.tasks.base", "django_tasks.base"})


def raised_while_queueing(err: BaseException) -> bool:
    """True if ``err`` came out of a task's ``enqueue`` (the broker refused or was gone)."""
    return any(queueing_frame(tb) for tb in frames(err.__traceback__))


def frames(tb: TracebackType | None) -> Iterator[TracebackType]:
    while tb is not None:
        yield tb
        tb = tb.tb_next


def queueing_frame(tb: TracebackType) -> bool:
    frame = tb.tb_frame
    return frame.f_code.co_name in ("enqueue", "aenqueue") and (
        frame.f_globals.get("__name__") in TASK_API_MODULES
    )
