"""django-tasks entry points: ids in, one engine call out, a JSON-able report back.

Each task is registered with :mod:`.schedule`, the only module that enqueues them. Every task of
a run then checks that the janitor's chain is alive, and re-arms it if it died. On SQLite every
task's transactions take the write lock when they begin, and wait for it (engine.sqlite_locks);
on PostgreSQL a task's transaction left waiting on its worker ends after a lease
(engine.idle_transactions).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from . import schedule
from .compat import task
from .engine import batch_poll, coordinator, janitor, pauses, worker
from .engine.idle_transactions import in_bounded_transactions
from .engine.sqlite_locks import in_writers_wait
from .engine.task_failures import ends_run_when_failing
from .glossary import imports as glossary_imports
from .glossary import sync as glossary_sync
from .models import Run, RunStatus
from .revert import undo
from .sync import dispatch


def clears_leftovers(func: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """A run task after which the run is over removes the run's tasks still queued (a deferred
    wake-up of another worker chain, a quota retry left behind by a resume): nothing stays
    queued for a finished run. Such a task that starts anyway finds the run over and exits."""

    @wraps(func)
    def wrapper(run_id: int, *args: Any) -> dict[str, Any]:
        report = func(run_id, *args)
        if Run.objects.filter(pk=run_id, status__in=RunStatus.terminal).exists():
            schedule.discard_finished_runs_tasks()
        return report

    return wrapper


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
@ends_run_when_failing("coordinate_run")
def coordinate_run(run_id: int, token: str | None = None) -> dict[str, Any]:
    """One coordinator tick; it re-queues itself with its lease token until enumeration ends."""
    report = coordinator.coordinate_and_continue(run_id, token)
    janitor.keep_janitor_alive()
    return report


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
@clears_leftovers
@ends_run_when_failing("process_units")
def process_units(run_id: int) -> dict[str, Any]:
    """Process units of a run for one time budget; the chain goes on while work remains."""
    report = worker.work_and_continue(run_id)
    janitor.keep_janitor_alive()
    return report


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
@clears_leftovers
@ends_run_when_failing("retry_after_quota")
def retry_after_quota(run_id: int) -> dict[str, Any]:
    """Resume a run that paused because the translator's quota ran out."""
    resumed = pauses.retry_after_quota(run_id)
    janitor.keep_janitor_alive()
    return {"resumed": resumed}


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
@clears_leftovers
@ends_run_when_failing("retry_after_budget")
def retry_after_budget(run_id: int) -> dict[str, Any]:
    """Resume a run paused by a spending cap, once the cap has room again."""
    resumed = pauses.retry_after_budget(run_id)
    janitor.keep_janitor_alive()
    return {"resumed": resumed}


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
def janitor_sweep(token: str | None = None) -> dict[str, Any]:
    """One janitor sweep; re-queues itself every JANITOR_INTERVAL_SECONDS while runs are active.
    The tasks still queued for runs that ended are removed."""
    report = janitor.sweep_and_continue(token)
    schedule.discard_finished_runs_tasks()
    return report


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
def poll_provider_batches() -> dict[str, Any]:
    """Ask the provider about waiting batches; take in those that are over."""
    return batch_poll.poll_batches().as_dict()


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
def janitor_guard() -> dict[str, Any]:
    """Take the janitor's chain over if it died (queued with each lease the chain takes)."""
    return janitor.take_over_if_dead()


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
def revert_units(run_id: int) -> dict[str, Any]:
    """Revert a run's units for one time budget; re-queues itself until all are done."""
    done = undo.revert_and_continue(run_id)
    janitor.keep_janitor_alive()
    return {"done": done}


@schedule.register
@task()
def sync_glossaries(attempt: int = 0, check_remote: bool = False) -> dict[str, Any]:
    """Create or replace the DeepL glossaries whose terms changed (one per language pair)."""
    return glossary_sync.sync_deepl_glossaries(attempt, check_remote).as_json()


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
def import_glossary(import_id: int) -> dict[str, Any]:
    """Write the terms of a glossary CSV import (one transaction, up to 50,000 terms)."""
    return {"status": glossary_imports.run_import(import_id)}


@schedule.register
@task()
@in_writers_wait
@in_bounded_transactions
def dispatch_sync_changes() -> dict[str, Any]:
    """Start automatic runs for the changes whose window has passed (automatic sync)."""
    janitor.keep_janitor_alive()
    return dispatch.dispatch_due_changes().as_json()
