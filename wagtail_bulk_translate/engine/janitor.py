"""The janitor: repairs what crashed workers and lost tasks leave behind.

Task backends lose work in ways the plugin cannot see: django-tasks' database backend leaves
the task of a SIGKILLed worker RUNNING forever, and a lost task ends a chain of re-queues. The
unit table, not the task table, is the source of truth, so a sweep:

* returns units whose lease expired to work (or fails them once their attempts are spent);
  units of cancelled or finished runs are cancelled, never resurrected;
* restarts the coordinator of a run whose enumeration stopped before it was done;
* queues workers for a running run with claimable units and no worker activity lately;
* finishes runs whose last unit ended on a path that did not finish the run.

Every time comparison uses the database clock. The sweep runs as a self-re-queuing task while a
run is active (one chain at a time, held by a lease) and as ``manage.py bulk_translate_janitor``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Now

from ..conf import get_settings
from ..errors import ErrorCode
from ..models import JanitorLease, Run, RunStatus, Unit, UnitStatus
from .claims import LEASE_EXPIRED_MESSAGE, claimable_filter
from .finish import try_finish_run

ACTIVE = (RunStatus.PENDING, RunStatus.RUNNING)
LIVE_RUNS = (*ACTIVE, RunStatus.PAUSED)


@dataclass
class SweepReport:
    leases_returned: int = 0
    leases_failed: int = 0
    orphans_cancelled: int = 0
    coordinators_restarted: int = 0
    workers_queued: int = 0
    runs_finished: int = 0
    quota_retries: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def sweep() -> SweepReport:
    report = SweepReport()
    report.leases_failed = fail_exhausted_leases()
    report.leases_returned = return_expired_leases()
    report.orphans_cancelled = cancel_orphaned_units()
    report.quota_retries = retry_quota_paused_runs()
    for run in Run.objects.filter(status__in=ACTIVE).only("pk", "enumeration_done"):
        if not run.enumeration_done and restart_coordinator(run.pk):
            report.coordinators_restarted += 1
        report.workers_queued += restart_stalled_workers(run.pk)
        if try_finish_run(run.pk):
            report.runs_finished += 1
    return report


def expired_leases():
    return Unit.objects.filter(status=UnitStatus.RUNNING, lease_expires_at__lt=Now())


def fail_exhausted_leases() -> int:
    return (
        expired_leases()
        .filter(run__status__in=LIVE_RUNS, attempts__gte=get_settings().MAX_ATTEMPTS)
        .update(
            status=UnitStatus.FAILED,
            error_code=ErrorCode.LEASE_EXPIRED,
            error_message=LEASE_EXPIRED_MESSAGE,
            lease_token=None,
            lease_expires_at=None,
            finished_at=Now(),
        )
    )


def return_expired_leases() -> int:
    # The attempt was spent by the claim; the unit is simply claimable again.
    return (
        expired_leases()
        .filter(run__status__in=LIVE_RUNS)
        .update(status=UnitStatus.PENDING, lease_token=None, lease_expires_at=None)
    )


def cancel_orphaned_units() -> int:
    """In-flight units of runs that are over (cancelled, failed, finished): never resumed."""
    stale = Q(status=UnitStatus.PENDING) | Q(status=UnitStatus.RUNNING, lease_expires_at__lt=Now())
    return (
        Unit.objects.filter(stale)
        .exclude(run__status__in=LIVE_RUNS)
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
    from ..tasks import enqueue_coordinator

    stall = timedelta(seconds=get_settings().STALL_SECONDS)
    never_started = Q(coordinator_lease_expires_at__isnull=True, created_at__lt=Now() - stall)
    lease_expired = Q(coordinator_lease_expires_at__lt=Now())
    with transaction.atomic():
        # Clearing the dead token frees the lease for the new delivery; the expiry set here
        # keeps the next sweeps from restarting it again before it had a chance to run.
        restarted = (
            Run.objects.filter(pk=run_id, enumeration_done=False, status__in=ACTIVE)
            .filter(never_started | lease_expired)
            .update(coordinator_token=None, coordinator_lease_expires_at=Now() + stall)
        )
        if restarted:
            transaction.on_commit(lambda: enqueue_coordinator(run_id))
    return bool(restarted)


def restart_stalled_workers(run_id: int) -> int:
    """Queue workers for claimable units nobody has touched for STALL_SECONDS."""
    from ..tasks import enqueue_workers
    from .coordinator import workers_needed

    stall = timedelta(seconds=get_settings().STALL_SECONDS)
    claimable = Unit.objects.filter(run_id=run_id).filter(claimable_filter()).count()
    if not claimable:
        return 0
    quiet = Q(heartbeat_at__lt=Now() - stall) | Q(
        heartbeat_at__isnull=True, started_at__lt=Now() - stall
    )
    with transaction.atomic():
        taken = (
            Run.objects.filter(pk=run_id, status=RunStatus.RUNNING)
            .filter(quiet)
            .update(heartbeat_at=Now())
        )
        if not taken:
            return 0
        transaction.on_commit(lambda: enqueue_workers(run_id, claimable))
    return workers_needed(claimable)


def quota_paused_runs():
    return Run.objects.filter(status=RunStatus.PAUSED, error_code=ErrorCode.QUOTA_EXCEEDED)


def retry_quota_paused_runs() -> int:
    """Resume runs paused for quota QUOTA_RETRY_SECONDS ago (backends that cannot defer the
    retry task rely on this); a run still out of quota pauses again at its first claim."""
    from ..runs.controls import resume_run

    wait = timedelta(seconds=get_settings().QUOTA_RETRY_SECONDS)
    due = quota_paused_runs().filter(heartbeat_at__lt=Now() - wait).values_list("pk", flat=True)
    return sum(resume_run(run_id) for run_id in due)


def any_run_active() -> bool:
    """Runs that need the janitor: in progress, or waiting for the translator's quota."""
    return Run.objects.filter(status__in=ACTIVE).exists() or quota_paused_runs().exists()


def acquire_janitor_lease(token: str | None) -> str | None:
    """Take the single janitor lease (or renew our own); None if another chain holds it."""
    interval = get_settings().JANITOR_INTERVAL_SECONDS or 60
    JanitorLease.objects.get_or_create(pk=1)
    new_token = token or str(uuid.uuid4())
    free = Q(token__isnull=True) | Q(expires_at__lt=Now())
    mine = Q(token=token) if token else Q(pk__in=[])
    updated = (
        JanitorLease.objects.filter(pk=1)
        .filter(free | mine)
        .update(token=new_token, expires_at=Now() + timedelta(seconds=interval * 3))
    )
    return new_token if updated else None


def release_janitor_lease(token: str) -> None:
    JanitorLease.objects.filter(pk=1, token=token).update(token=None, expires_at=None)
