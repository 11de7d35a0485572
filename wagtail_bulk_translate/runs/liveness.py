"""Whether any worker is doing a run's work: the hint to start one when nobody is."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from django.utils import timezone

from ..conf import get_settings
from ..engine.task_failures import TASK_LABELS, failed_recently
from ..models import Run, RunStatus, UnitStatus

# A new run's coordinator is picked up within a worker's poll interval (seconds).
COORDINATOR_START_SECONDS = 30


def seconds_without_worker(
    run: Run, now: datetime | None = None, counts: Mapping[str, int] | None = None
) -> int | None:
    """How long work has been waiting with no worker touching the run, once that is longer
    than a worker could take to show up; None while workers are (or may be) at it.

    ``counts`` (units per status, when the caller has them) saves the two queries.
    """
    now = now or timezone.now()
    if failed_recently(run):
        return None  # a worker ran the run's task, and it failed: task_failure_note says so
    if run.status == RunStatus.PENDING:
        waited = (now - run.created_at).total_seconds()
        return round(waited) if waited >= COORDINATOR_START_SECONDS else None
    if run.status != RunStatus.RUNNING or not work_is_waiting(run, now, counts):
        return None
    last_seen = run.heartbeat_at or run.started_at or run.created_at
    waited = (now - last_seen).total_seconds()
    if waited < get_settings().STALL_SECONDS or waits_for_provider(run):
        return None
    return round(waited)


def waits_for_provider(run: Run) -> bool:
    """Its pending units all wait for a provider's batch: no worker is needed meanwhile."""
    units = run.units.all()
    return units.filter(waiting_batch__isnull=False).exists() and not units.claimable().exists()


def work_is_waiting(run: Run, now: datetime, counts: Mapping[str, int] | None) -> bool:
    """Units are left to do (or to enumerate) and no worker holds a live lease on any.

    A unit still marked running whose lease has expired is work waiting: its worker died.
    """
    units = run.units.all()
    if counts is not None and not counts.get(UnitStatus.RUNNING, 0):
        return bool(counts.get(UnitStatus.PENDING, 0)) or not run.enumeration_done
    if units.filter(status=UnitStatus.RUNNING, lease_expires_at__gt=now).exists():
        return False
    if counts is not None:
        return True  # running units, all with expired leases
    unfinished = units.filter(status__in=(UnitStatus.PENDING, UnitStatus.RUNNING))
    return not run.enumeration_done or unfinished.exists()


def worker_command() -> str:
    """The command that starts a worker on the plugin's queue, as configured."""
    return f"manage.py db_worker --queue-name {get_settings().QUEUE}"


def task_failure_note(run: Run) -> str:
    """What is failing in an unfinished run, for progress lines and the run page ("" if none)."""
    if run.is_finished or not run.task_failures:
        return ""
    limit = get_settings().TASK_MAX_ATTEMPTS
    notes = [
        f"{TASK_LABELS.get(name, name)} failed ({failure['count']} of {limit} attempts): "
        f"{failure['error']}; retrying"
        for name, failure in sorted(run.task_failures.items())
    ]
    return "; ".join(notes)
