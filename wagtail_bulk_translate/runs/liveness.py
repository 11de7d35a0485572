"""Whether any worker is doing a run's work: the hint to start one when nobody is."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from ..conf import get_settings
from ..models import Run, RunStatus, UnitStatus

# A new run's coordinator is picked up within a worker's poll interval (seconds).
COORDINATOR_START_SECONDS = 30


def seconds_without_worker(run: Run, now: datetime | None = None) -> int | None:
    """How long work has been waiting with no worker touching the run, once that is longer
    than a worker could take to show up; None while workers are (or may be) at it."""
    now = now or timezone.now()
    if run.status == RunStatus.PENDING:
        waited = (now - run.created_at).total_seconds()
        return round(waited) if waited >= COORDINATOR_START_SECONDS else None
    if run.status != RunStatus.RUNNING:
        return None
    units = run.units.all()
    if units.filter(status=UnitStatus.RUNNING).exists():
        return None
    if run.enumeration_done and not units.filter(status=UnitStatus.PENDING).exists():
        return None
    last_seen = run.heartbeat_at or run.started_at or run.created_at
    waited = (now - last_seen).total_seconds()
    return round(waited) if waited >= get_settings().STALL_SECONDS else None


def worker_command() -> str:
    """The command that starts a worker on the plugin's queue, as configured."""
    return f"manage.py db_worker --queue-name {get_settings().QUEUE}"
