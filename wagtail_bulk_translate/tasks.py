"""django-tasks entry points. They only take ids and call the engine.

Only the django-tasks API is used (enqueue, ``using(backend=, queue_name=, run_after=)``), so
any backend works: the database backend, RQ, Celery.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone

from .compat import task
from .conf import get_settings
from .engine import janitor
from .engine.coordinator import coordinate, workers_needed
from .engine.finish import next_wakeup
from .engine.worker import process_run
from .errors import ErrorCode
from .models import Run, RunStatus
from .runs import controls


def configured(task_obj):
    conf = get_settings()
    return task_obj.using(backend=conf.TASK_BACKEND, queue_name=conf.QUEUE)


def can_defer() -> bool:
    return configured(process_units).get_backend().supports_defer


def enqueue_later(task_obj, when, *args) -> None:
    """Enqueue to run at ``when`` (now, on backends that cannot defer)."""
    task_obj = configured(task_obj)
    if when > timezone.now() and task_obj.get_backend().supports_defer:
        task_obj = task_obj.using(run_after=when)
    task_obj.enqueue(*args)


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
    a retry back-off, or held by a worker that may have died. The task then comes back when
    the earliest of those becomes claimable (one such deferred task per run), so a run never
    stalls for want of a task and idle tasks do not multiply.
    """
    outcome = process_run(run_id)
    if outcome.more_work:
        configured(process_units).enqueue(run_id)
    elif still_enumerating(run_id):
        # More units are coming: keep this chain alive instead of queuing new chains per batch.
        poll = timezone.now() + timedelta(seconds=ENUMERATION_POLL_SECONDS)
        enqueue_later(process_units, poll, run_id)
    else:
        wake_at = next_wakeup(run_id)
        if wake_at is not None and reserve_wakeup(run_id, wake_at):
            enqueue_later(process_units, wake_at, run_id)
        else:  # this chain ends; a later batch or restart may start another
            Run.objects.filter(pk=run_id, worker_chains__gt=0).update(
                worker_chains=F("worker_chains") - 1
            )
    return {"units_processed": outcome.units_processed, "more_work": outcome.more_work}


ENUMERATION_POLL_SECONDS = 1


def still_enumerating(run_id: int) -> bool:
    return Run.objects.filter(pk=run_id, status=RunStatus.RUNNING, enumeration_done=False).exists()


def reserve_wakeup(run_id: int, when) -> bool:
    """Only one deferred worker task per run: reserve the wake-up unless an earlier one is."""
    earlier_pending = Q(wakeup_at__gte=Now()) & Q(wakeup_at__lte=when)
    return bool(Run.objects.filter(pk=run_id).exclude(earlier_pending).update(wakeup_at=when))


@task()
def retry_after_quota(run_id: int) -> dict:
    """Resume a run that paused because the translator's quota ran out.

    If the quota is still exhausted, the first claim pauses the run again and schedules the
    next try, so the run polls the quota at QUOTA_RETRY_SECONDS until it comes back.
    """
    still_paused = Run.objects.filter(
        pk=run_id, status=RunStatus.PAUSED, error_code=ErrorCode.QUOTA_EXCEEDED
    ).exists()
    return {"resumed": still_paused and controls.resume_run(run_id)}


def schedule_quota_retry(run_id: int) -> None:
    if can_defer():
        when = timezone.now() + timedelta(seconds=get_settings().QUOTA_RETRY_SECONDS)
        enqueue_later(retry_after_quota, when, run_id)


@task()
def janitor_sweep(token: str | None = None) -> dict:
    """One janitor sweep; re-queues itself every JANITOR_INTERVAL_SECONDS while a run is active.

    The next sweep is queued before this one runs, so a worker killed mid-sweep does not end
    the chain; the lease (passed along as ``token``) keeps duplicate chains out.
    """
    token = janitor.acquire_janitor_lease(token)
    if token is None:
        return {"ran": False}
    interval = get_settings().JANITOR_INTERVAL_SECONDS
    active = janitor.any_run_active()
    if active and interval and can_defer():
        enqueue_later(janitor_sweep, timezone.now() + timedelta(seconds=interval), token)
    report = janitor.sweep()
    if not active:
        janitor.release_janitor_lease(token)
    return {"ran": True, **report.as_dict()}


def ensure_janitor() -> None:
    """Start the janitor chain if it is enabled (a duplicate chain exits at once)."""
    if get_settings().JANITOR_INTERVAL_SECONDS and can_defer():
        configured(janitor_sweep).enqueue()


def enqueue_coordinator(run_id: int) -> None:
    configured(coordinate_run).enqueue(run_id)
    ensure_janitor()


def enqueue_workers(run_id: int, claimable_units: int) -> None:
    enqueue_worker_tasks(run_id, workers_needed(claimable_units))


def enqueue_worker_tasks(run_id: int, count: int) -> None:
    for _ in range(count):
        configured(process_units).enqueue(run_id)


@task()
def revert_units(run_id: int) -> dict:
    """Revert a run's units for one time budget; re-queues itself until all are done."""
    from .revert.undo import revert_some

    done = revert_some(run_id, get_settings().WORKER_TIME_BUDGET_SECONDS)
    if not done:
        configured(revert_units).enqueue(run_id)
    return {"done": done}
