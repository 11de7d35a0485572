"""django-tasks entry points. They only take ids and call the engine."""

from __future__ import annotations

from .compat import task
from .conf import get_settings
from .coordinator import coordinate, workers_needed
from .models import Run, RunStatus
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
    """Process units of a run for one time budget; re-queues itself while work remains."""
    outcome = process_run(run_id)
    still_running = Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists()
    if outcome.more_work and still_running:
        configured(process_units).enqueue(run_id)
    return {"units_processed": outcome.units_processed, "more_work": outcome.more_work}


def enqueue_coordinator(run_id: int) -> None:
    configured(coordinate_run).enqueue(run_id)


def enqueue_workers(run_id: int, claimable_units: int) -> None:
    for _ in range(workers_needed(claimable_units)):
        configured(process_units).enqueue(run_id)
