"""The janitor: repairs what crashed workers and lost tasks leave behind.

Task backends lose work in ways the plugin cannot see: django-tasks' database backend leaves
the task of a SIGKILLed worker RUNNING forever, and a lost task ends a chain of re-queues. The
unit table, not the task table, is the source of truth, so a sweep:

* returns units whose lease expired to work, in smaller claims (or fails a unit whose worker
  died every time it was processed alone, see :mod:`.claims`);
  units of cancelled or finished runs are cancelled, never resurrected;
* restarts the coordinator of a run whose enumeration stopped before it was done;
* queues workers for a running run with claimable units and no worker activity lately;
* finishes runs whose last unit ended on a path that did not finish the run;
* resumes runs paused for quota after a while, and runs paused by a budget that has room again;
* queues automatic sync's dispatch when changes wait past their window (its task was lost);
* queues a poll of the provider batches runs wait for (:mod:`.batch_poll`).

Every time comparison uses the database clock. The sweep runs as a self-re-queuing task while a
run is active (one chain at a time, held by a lease) and as ``manage.py bulk_translate_janitor``.

A chain can die: its task killed before it queued its successor, and left RUNNING by the
backend. When every worker chain is dead too, no task is left to notice. So whoever takes or
renews the janitor's lease while a run is active queues a guard with it, in one transaction: a
``janitor_guard`` task due one interval after that lease will have lapsed. While the chain
lives, each guard finds the lease renewed and exits; once it died, the first guard due takes the
lease over and sweeps (and queues its own guard). A queued task is not lost when a worker is
killed, only a running one, so the janitor stops for good only if the chain dies and then the
guard that finds it dead is killed too, before it took over. Every worker task, coordinator
tick, control action and status read re-arms a lapsed chain as well (:func:`rearm_if_lapsed`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import Q
from django.db.models.functions import Now

from .. import schedule
from ..conf import get_settings
from ..errors import ErrorCode
from ..models import (
    EXPIRED_LEASE,
    BatchState,
    JanitorLease,
    ProviderBatch,
    Run,
    RunStatus,
    Unit,
    UnitStatus,
)
from ..sync.pending import overdue_changes, rearm_overdue_dispatch
from .claims import recover_expired_leases
from .finish import try_finish_run
from .leases import release_lease, take_lease
from .pauses import resume_if_glossaries_synced, resume_run, retry_after_budget

logger = logging.getLogger(__name__)

LEASE_FIELDS = {"token_field": "token", "expiry_field": "expires_at"}


@dataclass
class SweepReport:
    leases_returned: int = 0
    leases_failed: int = 0
    orphans_cancelled: int = 0
    coordinators_restarted: int = 0
    workers_queued: int = 0
    runs_finished: int = 0
    quota_retries: int = 0
    budget_resumes: int = 0
    glossary_resumes: int = 0
    sync_dispatches: int = 0
    batch_polls: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def sweep_and_continue(token: str | None = None) -> dict[str, Any]:
    """One janitor task: the next sweep is queued before this one runs, so a worker killed
    mid-sweep does not end the chain; the lease (passed along as ``token``) keeps duplicate
    chains out."""
    active = any_run_active()
    token = acquire_janitor_lease(token, guarded=active)
    if token is None:
        return {"ran": False}
    if active:
        schedule.next_janitor_sweep(token)
    report = sweep()
    if not active:
        release_janitor_lease(token)
    return {"ran": True, **report.as_dict()}


def sweep() -> SweepReport:
    report = SweepReport()
    report.leases_returned, report.leases_failed = recover_expired_leases(units_of_active_runs())
    report.orphans_cancelled = cancel_orphaned_units()
    report.quota_retries = retry_quota_paused_runs()
    report.budget_resumes = resume_budget_paused_runs()
    report.glossary_resumes = resume_if_glossaries_synced()
    report.sync_dispatches = int(rearm_overdue_dispatch())
    if ProviderBatch.objects.filter(state__in=BatchState.waiting()).exists():
        schedule.poll_provider_batches()
        report.batch_polls = 1
    for run in Run.objects.in_progress().only("pk", "enumeration_done"):
        if not run.enumeration_done and restart_coordinator(run.pk):
            report.coordinators_restarted += 1
        report.workers_queued += restart_stalled_workers(run.pk)
        if try_finish_run(run.pk):
            report.runs_finished += 1
    return report


def units_of_active_runs() -> Any:
    return Unit.objects.filter(run__status__in=RunStatus.active)


def cancel_orphaned_units() -> int:
    """In-flight units of runs that are over (cancelled, failed, finished): never resumed."""
    return (
        Unit.objects.filter(Q(status=UnitStatus.PENDING) | EXPIRED_LEASE)
        .exclude(run__status__in=RunStatus.active)
        .update(
            status=UnitStatus.CANCELLED,
            error_code=ErrorCode.CANCELLED,
            error_message="The run ended before this unit could be translated.",
            lease_token=None,
            lease_expires_at=None,
            finished_at=Now(),
        )
    )


def restart_coordinator(run_id: int) -> bool:
    """Re-queue the coordinator of a run whose chain of ticks died (its lease expired)."""
    stall = timedelta(seconds=get_settings().STALL_SECONDS)
    never_started = Q(coordinator_lease_expires_at__isnull=True, created_at__lt=Now() - stall)
    lease_expired = Q(coordinator_lease_expires_at__lt=Now())
    with transaction.atomic():
        # Clearing the dead token frees the lease for the new delivery; the expiry set here
        # keeps the next sweeps from restarting it again before it had a chance to run.
        restarted = (
            Run.objects.in_progress()
            .filter(pk=run_id, enumeration_done=False)
            .filter(never_started | lease_expired)
            .update(coordinator_token=None, coordinator_lease_expires_at=Now() + stall)
        )
        if restarted:
            transaction.on_commit(lambda: schedule.start_coordinator(run_id))
    return bool(restarted)


def restart_stalled_workers(run_id: int) -> int:
    """Queue the worker chains a run is missing once nobody claimed its units for STALL_SECONDS.

    Quiet is not dead: on a loaded machine a claim can take longer than that, and a queued
    chain can wait behind other tasks longer than that. Only the chains missing are queued, not
    a full set every STALL_SECONDS (which piled up chains, and load, while claims were slow).
    """
    stall = timedelta(seconds=get_settings().STALL_SECONDS)
    quiet = Q(heartbeat_at__lt=Now() - stall) | Q(
        heartbeat_at__isnull=True, started_at__lt=Now() - stall
    )
    stalled = Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).filter(quiet)
    if not stalled.exists():
        return 0
    claimable = Unit.objects.filter(run_id=run_id).claimable().count()
    needed = schedule.workers_needed(claimable)
    missing = needed - live_worker_chains(run_id)
    if missing <= 0:
        return 0
    with transaction.atomic():
        # A compare-and-set: of two sweeps at once, one queues them. The run's count of chains
        # becomes what is alive now, so chains of killed workers (never counted down) no longer
        # keep the coordinator from starting new ones, nor these push it past the limit.
        if not stalled.update(heartbeat_at=Now(), worker_chains=needed):
            return 0
        transaction.on_commit(lambda: schedule.start_worker_chains(run_id, missing))
    return missing


def live_worker_chains(run_id: int) -> int:
    """Worker chains of a run known to be alive: those holding a claim whose lease is live (their
    LeaseKeeper renews it while they work), and those queued and ready to start (on a backend
    that can tell, see :func:`.schedule.queued_tasks`)."""
    holding = (
        Unit.objects.filter(run_id=run_id, status=UnitStatus.RUNNING, lease_expires_at__gte=Now())
        .values("lease_token")
        .distinct()
        .count()
    )
    return holding + (schedule.queued_tasks("process_units", run_id) or 0)


def retry_quota_paused_runs() -> int:
    """Resume runs paused for quota QUOTA_RETRY_SECONDS ago (backends that cannot defer the
    retry task rely on this); a run still out of quota pauses again at its first claim."""
    wait = timedelta(seconds=get_settings().QUOTA_RETRY_SECONDS)
    due = Run.objects.paused_for_quota().filter(paused_at__lt=Now() - wait)
    return sum(resume_run(run_id) for run_id in due.values_list("pk", flat=True))


def resume_budget_paused_runs() -> int:
    """Resume runs paused by a cap that has room again (its period rolled over, or the cap was
    raised in the settings)."""
    paused = Run.objects.paused_for_budget().values_list("pk", flat=True)
    return sum(retry_after_budget(run_id) for run_id in paused)


def any_run_active() -> bool:
    """Runs that need the janitor: in progress, or waiting for the translator's quota or for
    room in a budget; and automatic sync's changes whose dispatch is late (its task lost with
    a worker)."""
    waiting = (ErrorCode.QUOTA_EXCEEDED, ErrorCode.BUDGET_EXCEEDED)
    return (
        Run.objects.filter(
            Q(status__in=RunStatus.in_progress) | Q(status=RunStatus.PAUSED, error_code__in=waiting)
        ).exists()
        or overdue_changes().exists()
    )


def take_over_if_dead() -> dict[str, Any]:
    """A guard's task: the janitor's chain died if its lease lapsed while a run is active; then
    this guard takes the lease and carries the chain on. Otherwise it exits."""
    if not any_run_active():
        return {"ran": False}
    return sweep_and_continue(None)


def keep_janitor_alive() -> None:
    """Re-arm the janitor if its chain died; best effort, never failing the caller.

    Called after each task's own work (and by controls and status reads): a busy database here
    must not fail a task whose continuation is already queued; the next caller tries again.
    """
    try:
        rearm_if_lapsed()
    except DatabaseError:
        logger.warning("Could not check the janitor's lease", exc_info=True)


def rearm_if_lapsed() -> bool:
    """Start a new janitor chain if the live one died (its lease lapsed) while a run is active.

    The new chain's lease is taken here, by a compare-and-set, and its token handed to the first
    sweep: however many callers find the lease lapsed at once, one re-arms it, and a late task
    of the dead chain finds its token replaced and exits. True if this call re-armed it.
    """
    interval = get_settings().JANITOR_INTERVAL_SECONDS
    if not interval or not schedule.can_defer():
        return False
    if janitor_lease_alive() or not any_run_active():
        return False
    token = acquire_janitor_lease(None, guarded=True)
    if token is None:
        return False  # another caller re-armed it first
    transaction.on_commit(lambda: schedule.resume_janitor(token))
    return True


def janitor_lease_alive() -> bool:
    return not lease_takeable(None)


def janitor_lease_row() -> Any:
    JanitorLease.objects.get_or_create(pk=1)
    return JanitorLease.objects.filter(pk=1)


def acquire_janitor_lease(token: str | None, *, guarded: bool) -> str | None:
    """Take the single janitor lease (or renew our own); None if another chain holds it.

    ``guarded`` (a run is active, the chain goes on): the lease is taken with a guard queued in
    the same transaction, due one interval after this lease will have lapsed (see the module's
    docstring). Only a call that may take the lease queues one, so guards do not multiply.
    """
    interval = get_settings().JANITOR_INTERVAL_SECONDS or 60
    lease_seconds = interval * 3
    rows = janitor_lease_row()
    if not guarded or not schedule.can_defer():
        return take_lease(rows, token, lease_seconds, **LEASE_FIELDS)
    if not lease_takeable(token):
        return None
    with transaction.atomic():
        # One transaction: the lease is never renewed without its guard, and its expiry (the
        # database clock, read a moment after the guard's due time was set) falls an interval
        # before that due time.
        schedule.guard_janitor(after_seconds=lease_seconds + interval)
        return take_lease(rows, token, lease_seconds, **LEASE_FIELDS)


def lease_takeable(token: str | None) -> bool:
    """The lease is free, lapsed, or ours (``token``)."""
    held_by_another = JanitorLease.objects.filter(pk=1, token__isnull=False, expires_at__gte=Now())
    if token is not None:
        held_by_another = held_by_another.exclude(token=token)
    return not held_by_another.exists()


def release_janitor_lease(token: str) -> None:
    release_lease(JanitorLease.objects.filter(pk=1), token, **LEASE_FIELDS)
