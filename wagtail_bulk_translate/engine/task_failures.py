"""A run task that keeps raising ends its run, instead of leaving it "running" forever.

Each failure of a run's task (its coordinator, its worker chains, its resumes) is logged with
its traceback and counted on the run, per task. A success of that task clears its count. After
``TASK_MAX_ATTEMPTS`` failures in a row the run ends ``failed`` with the exception's class and
message (a lost database connection, or a task queue that could not be reached, does not
count: the outage is not the run's); before
that, the coordinator's lease is given up with a back-off, so the janitor restarts it soon
rather than after a whole lease.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from django.db import transaction
from django.db.models.functions import Now

from ..conf import get_settings
from ..errors import ErrorCode
from ..models import Run
from .broker import raised_while_queueing
from .connections import is_connection_lost
from .finish import stop_run

logger = logging.getLogger(__name__)

Result = TypeVar("Result")

# What an operator reads: which part of the run failed.
TASK_LABELS = {
    "coordinate_run": "The run's coordinator (which lists the objects to translate)",
    "process_units": "The run's worker task",
    "retry_after_quota": "The run's resume after a quota pause",
    "retry_after_budget": "The run's resume after a budget pause",
}
MESSAGE_LIMIT = 500


def ends_run_when_failing(name: str) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Count the failures of the run task ``name`` (its first argument is the run id)."""

    def decorate(function: Callable[..., Result]) -> Callable[..., Result]:
        @functools.wraps(function)
        def wrapper(run_id: int, *args: Any, **kwargs: Any) -> Result:
            try:
                result = function(run_id, *args, **kwargs)
            except Exception as error:
                logger.exception("Run %s: task %s failed", run_id, name)
                if not is_outage(error):
                    record_failure(run_id, name, error)
                raise
            clear_failures(run_id, name)
            return result

        return wrapper

    return decorate


def is_outage(error: BaseException) -> bool:
    """The database or the task queue was unreachable: not the run's fault, and the task's next
    try (the janitor's) finds them back."""
    return is_connection_lost(error) or raised_while_queueing(error)


def describe(error: BaseException) -> str:
    text = " ".join(str(error).split())[:MESSAGE_LIMIT]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def record_failure(run_id: int, name: str, error: BaseException) -> None:
    """Count one failure; the run ends ``failed`` once the task failed too many times."""
    limit = get_settings().TASK_MAX_ATTEMPTS
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.is_finished:
            return
        failures = dict(run.task_failures or {})
        count = failures.get(name, {}).get("count", 0) + 1
        failures[name] = {"count": count, "error": describe(error), "at": time.time()}
        Run.objects.filter(pk=run_id).update(task_failures=failures)
        if count < limit and name == "coordinate_run":
            release_coordinator(run_id, count)
    if count >= limit:
        label = TASK_LABELS.get(name, f"The run's task {name}")
        message = (
            f"{label} failed {count} times in a row: {describe(error)}. "
            "The worker's log holds the traceback; once the cause is fixed, start the run again."
        )
        stop_run(run_id, ErrorCode.INTERNAL_ERROR, message)


def release_coordinator(run_id: int, failures: int) -> None:
    """Give the coordinator lease up after a back-off: the janitor restarts the coordinator when
    it lapses (a failed tick left it held for a whole lease)."""
    conf = get_settings()
    delay = min(conf.RETRY_BACKOFF_SECONDS * 2 ** (failures - 1), conf.RETRY_BACKOFF_MAX_SECONDS)
    Run.objects.filter(pk=run_id, enumeration_done=False).update(
        coordinator_token=None, coordinator_lease_expires_at=Now() + timedelta(seconds=delay)
    )


def clear_failures(run_id: int, name: str) -> None:
    failures = Run.objects.filter(pk=run_id).values_list("task_failures", flat=True).first()
    if failures and name in failures:
        remaining = {key: value for key, value in failures.items() if key != name}
        Run.objects.filter(pk=run_id).update(task_failures=remaining)


def failed_recently(run: Run) -> bool:
    """A task of the run failed lately, so a worker was alive then: its next try is due within a
    back-off and the janitor's sweep."""
    if run.is_finished or not run.task_failures:
        return False
    conf = get_settings()
    window = (
        conf.RETRY_BACKOFF_MAX_SECONDS + conf.STALL_SECONDS + (conf.JANITOR_INTERVAL_SECONDS or 0)
    )
    latest = max(failure.get("at", 0) for failure in run.task_failures.values())
    return time.time() - latest < window
