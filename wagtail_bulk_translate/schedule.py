"""The only module that enqueues tasks: the engine says what should run next, this queues it.

Tasks are queued on the configured backend and queue with the django-tasks API only
(``enqueue``, ``using(backend=, queue_name=, run_after=, priority=)``), so any backend works.
``tasks.py`` registers its task objects here when Django loads it, so the engine depends on this
module and not on the task entry points, which depend on the engine.

On a backend with priorities the plugin's tasks go before the default priority of everything
else in the queue: each target written queues several of Wagtail's own tasks (search and
reference index updates), and a worker process serving every queue takes tasks of one priority
first in, first out. At the default priority a worker chain's continuation, or a janitor sweep
restarting the chains of killed workers, waited behind hundreds of them, and a run stalled
for minutes with live workers. The janitor, which restarts everything else, goes first.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from .conf import get_settings

_tasks: dict[str, Any] = {}

# django-tasks priorities run from -100 to 100; the default is 0.
PRIORITY = 10
PRIORITIES = {"janitor_sweep": 20, "janitor_guard": 20}


def register(task_obj: Any) -> Any:
    """Make a task enqueueable by name (``tasks.py`` decorates each entry point with it)."""
    _tasks[task_obj.name] = task_obj
    return task_obj


def configured(name: str) -> Any:
    try:
        task_obj = _tasks[name]
    except KeyError:
        raise RuntimeError(
            f"The task {name!r} is not registered: wagtail_bulk_translate.tasks was not loaded "
            "(is wagtail_bulk_translate in INSTALLED_APPS?)."
        ) from None
    conf = get_settings()
    task_obj = task_obj.using(backend=conf.TASK_BACKEND, queue_name=conf.QUEUE)
    if task_obj.get_backend().supports_priority:
        task_obj = task_obj.using(priority=PRIORITIES.get(name, PRIORITY))
    return task_obj


def can_defer() -> bool:
    return configured("process_units").get_backend().supports_defer


def enqueue(name: str, *args: Any, when: datetime | None = None) -> None:
    """Enqueue now, or to run at ``when`` (now, on backends that cannot defer)."""
    task_obj = configured(name)
    if when is not None and when > timezone.now() and task_obj.get_backend().supports_defer:
        task_obj = task_obj.using(run_after=when)
    task_obj.enqueue(*args)


def in_seconds(seconds: float) -> datetime:
    return timezone.now() + timedelta(seconds=seconds)


# --- the coordinator ---------------------------------------------------------------------------


def start_coordinator(run_id: int) -> None:
    enqueue("coordinate_run", run_id)
    ensure_janitor()


def continue_coordinator(run_id: int, token: str) -> None:
    enqueue("coordinate_run", run_id, token)


# --- workers -----------------------------------------------------------------------------------


def workers_needed(claimable_units: int) -> int:
    conf = get_settings()
    return min(conf.WORKER_CONCURRENCY, math.ceil(claimable_units / conf.UNITS_PER_CLAIM))


def start_workers(run_id: int, claimable_units: int) -> None:
    start_worker_chains(run_id, workers_needed(claimable_units))


def start_worker_chains(run_id: int, count: int) -> None:
    for _ in range(count):
        enqueue("process_units", run_id)


def queued_tasks(name: str, *args: Any) -> int | None:
    """How many ``name`` tasks with these arguments wait in the queue, ready to start; None
    when the backend cannot tell (only django-tasks-db's database backend can: the task API has
    no way to list a queue)."""
    stored = stored_tasks(name)
    if stored is None:
        return None
    wanted = list(args)
    return sum(
        1
        for args_kwargs in stored.ready().values_list("args_kwargs", flat=True)
        if args_kwargs["args"] == wanted
    )


def stored_tasks(name: str) -> Any:
    """The database backend's rows of ``name`` tasks (a DBTaskResult queryset), or None on
    another backend."""
    backend = configured(name).get_backend()
    try:
        from django_tasks_db.backend import DatabaseBackend
        from django_tasks_db.models import DBTaskResult
    except ImportError:  # another backend: django-tasks-db is not installed
        return None
    if not isinstance(backend, DatabaseBackend):
        return None
    return DBTaskResult.objects.filter(
        backend_name=backend.alias, task_path=configured(name).module_path
    )


# Tasks that take a run's id and have nothing to do once the run is over (the coordinator is
# left alone: a cancelled run's coordinator still ends its enumeration).
RUN_TASKS = ("process_units", "retry_after_quota", "retry_after_budget")


def discard_finished_runs_tasks() -> int:
    """Delete the tasks still queued for runs that are over (a worker chain's deferred wake-up,
    a quota retry left behind by a resume): they would only start, find the run over, and exit.

    The task API cannot cancel a task, so this works on django-tasks-db's database backend
    only; elsewhere such tasks run and exit at once (``tasks.py``). A task queued after its run
    ended (a retry of failed units reopened it since) is kept. Returns how many were deleted.
    """
    from .models import Run, RunStatus

    waiting: list[tuple[int, int, datetime]] = []  # (task row, run id, enqueued at)
    for name in RUN_TASKS:
        stored = stored_tasks(name)
        if stored is not None:
            rows = stored.filter(status="READY").values_list("pk", "args_kwargs", "enqueued_at")
            waiting += [(pk, args["args"][0], at) for pk, args, at in rows if args["args"]]
    ended: dict[int, datetime | None] = dict(
        Run.objects.filter(
            pk__in={run for _pk, run, _at in waiting}, status__in=RunStatus.terminal
        ).values_list("pk", "finished_at")
    )
    leftovers = [pk for pk, run, at in waiting if run in ended and at <= (ended[run] or at)]
    if not leftovers:
        return 0
    rows = stored_tasks(RUN_TASKS[0]).model.objects.filter(pk__in=leftovers, status="READY")
    return int(rows.delete()[0])


def continue_worker(run_id: int, when: datetime | None = None) -> None:
    enqueue("process_units", run_id, when=when)


def retry_quota_later(run_id: int) -> None:
    """Try a run paused for quota again later (backends that cannot defer rely on the janitor)."""
    if can_defer():
        enqueue("retry_after_quota", run_id, when=in_seconds(get_settings().QUOTA_RETRY_SECONDS))


def retry_budget_later(run_id: int, when: datetime) -> None:
    """Check a run paused by a budget again when the cap's period rolls over (the janitor
    checks it too, at every sweep)."""
    if can_defer():
        enqueue("retry_after_budget", run_id, when=when)


# --- the janitor -------------------------------------------------------------------------------


def ensure_janitor() -> None:
    """Start the janitor chain if it is enabled (a duplicate chain exits at once)."""
    if get_settings().JANITOR_INTERVAL_SECONDS and can_defer():
        enqueue("janitor_sweep")


def resume_janitor(token: str) -> None:
    """A new janitor chain, holding the lease taken under ``token``, sweeps now."""
    enqueue("janitor_sweep", token)


def next_janitor_sweep(token: str) -> None:
    interval = get_settings().JANITOR_INTERVAL_SECONDS
    if interval and can_defer():
        enqueue("janitor_sweep", token, when=in_seconds(interval))


def poll_provider_batches() -> None:
    """Ask the provider about the batches runs wait for (queued by the janitor's sweeps)."""
    enqueue("poll_provider_batches")


def guard_janitor(after_seconds: float) -> None:
    """A check, ``after_seconds`` from now, that the janitor's chain is still alive (it takes the
    chain over if not); queued with each lease the chain takes."""
    enqueue("janitor_guard", when=in_seconds(after_seconds))


# --- revert ------------------------------------------------------------------------------------


def revert_in_background(run_id: int) -> None:
    enqueue("revert_units", run_id)


# --- Wagtail's own tasks -----------------------------------------------------------------------


def update_reference_index(instance: Any) -> None:
    """Queue Wagtail's reference-index update of an object the engine wrote with Wagtail's
    automatic updates off (on Wagtail's own backend and queue, as its signal handler would)."""
    from wagtail.models import ReferenceIndex
    from wagtail.tasks import update_reference_index_task

    if ReferenceIndex.is_indexed(type(instance)):
        update_reference_index_task.enqueue(
            instance._meta.app_label, instance._meta.model_name, str(instance.pk)
        )


# --- the glossary ------------------------------------------------------------------------------


def sync_glossaries(
    attempt: int = 0, check_remote: bool = False, when: datetime | None = None
) -> None:
    """Sync the glossary to the translator's own glossaries (DeepL's), after a change, or
    again at ``when`` (the ``attempt``-th retry) when DeepL could not serve the last try."""
    enqueue("sync_glossaries", attempt, check_remote, when=when)


def import_glossary(import_id: int) -> None:
    """Write the terms of an uploaded glossary CSV file (checked already) in the background."""
    enqueue("import_glossary", import_id)


# --- automatic sync ----------------------------------------------------------------------------


def dispatch_sync_changes(when: datetime | None = None) -> None:
    """Start the automatic runs of the changes due by ``when`` (now if None), at that time."""
    enqueue("dispatch_sync_changes", when=when)
