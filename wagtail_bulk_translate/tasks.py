"""django-tasks entry points. They only take ids and call the engine."""

from __future__ import annotations

from django.utils import timezone

from .compat import task
from .conf import get_settings
from .coordinator import coordinate, workers_needed
from .run_state import next_wakeup
from .worker import process_run


def configured(task_obj):
    conf = get_settings()
    return task_obj.using(backend=conf.TASK_BACKEND, queue_name=conf.QUEUE)


@task()
def coordinate_run(run_id: int, token: str | None = None) -> dict:
    """One coordinator tick; re-queues itself with its lease token until enumeration is done."""
    result = coordinate(run_id, token)
    if result.continue_with:
        configured(coordinate_run).enqueue(run_id, result.continue_with)
    return {"ran": result.ran, "units_created": result.units_created, "done": result.done}


@task()
def process_units(run_id: int) -> dict:
    """Process units of a run for one time budget; re-queues itself while work remains.

    Work can remain without being claimable right now: units waiting for their parent page or
    a retry delay, or held by a worker that may have died. The task then comes back when the
    earliest of those becomes claimable, so a run never stalls for want of a task.
    """
    outcome = process_run(run_id)
    wake_at = None if outcome.more_work else next_wakeup(run_id)
    if outcome.more_work:
        configured(process_units).enqueue(run_id)
    elif wake_at is not None:
        requeue_at(process_units, run_id, wake_at)
    return {"units_processed": outcome.units_processed, "more_work": outcome.more_work}


def requeue_at(task_obj, run_id: int, when) -> None:
    task_obj = configured(task_obj)
    if task_obj.get_backend().supports_defer and when > timezone.now():
        task_obj = task_obj.using(run_after=when)
    task_obj.enqueue(run_id)


def enqueue_coordinator(run_id: int) -> None:
    configured(coordinate_run).enqueue(run_id)


def enqueue_workers(run_id: int, claimable_units: int) -> None:
    for _ in range(workers_needed(claimable_units)):
        configured(process_units).enqueue(run_id)
