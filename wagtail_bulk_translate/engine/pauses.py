"""Pausing and resuming runs: by an editor, or because the translator's quota ran out.

A quota pause is retried after ``QUOTA_RETRY_SECONDS`` (a deferred task, or the janitor on
backends that cannot defer); a run still out of quota pauses again at its first claim, so the
run polls the quota until it comes back.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import schedule
from ..errors import ErrorCode
from ..models import Run, RunStatus, UnitStatus
from .translator_settings import take_current_translator


def pause_run(run_id: int, *, code: str = "", message: str = "") -> bool:
    """Stop handing out work; units in flight finish. False if the run was not in progress."""
    return bool(Run.objects.filter(pk=run_id).pause(code=code, message=message))


def pause_for_quota(run_id: int, message: str) -> None:
    paused = pause_run(
        run_id,
        code=ErrorCode.QUOTA_EXCEEDED,
        message=f"{message} The run is paused and tries again automatically; "
        "you can also resume it once the quota is back.",
    )
    if paused:
        schedule.retry_quota_later(run_id)


def resume_run(run_id: int) -> bool:
    """Resume a paused run: its coordinator (if enumeration was cut short) and workers."""
    with transaction.atomic():
        updated = Run.objects.filter(pk=run_id, status=RunStatus.PAUSED).update(
            status=RunStatus.RUNNING,
            error_code="",
            error_message="",
            coordinator_token=None,
            coordinator_lease_expires_at=None,
            paused_at=None,
            heartbeat_at=timezone.now(),
        )
        if not updated:
            return False
        take_current_translator(run_id, "resume")
        run = Run.objects.get(pk=run_id)
        claimable = run.units.filter(status=UnitStatus.PENDING).count()
        transaction.on_commit(lambda: schedule.start_workers(run_id, max(claimable, 1)))
        transaction.on_commit(schedule.ensure_janitor)
        if not run.enumeration_done:
            transaction.on_commit(lambda: schedule.start_coordinator(run_id))
    return True


def retry_after_quota(run_id: int) -> bool:
    """Resume the run if it is still paused for quota; True if it resumed."""
    still_paused = Run.objects.paused_for_quota().filter(pk=run_id).exists()
    return still_paused and resume_run(run_id)
