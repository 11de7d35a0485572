"""Pausing and resuming runs: by an editor, because the translator's quota ran out, because
a spending cap was reached, or to wait for a glossary syncing to the translator.

A quota pause is retried after ``QUOTA_RETRY_SECONDS`` (a deferred task, or the janitor on
backends that cannot defer); a run still out of quota pauses again at its first claim, so the
run polls the quota until it comes back. A budget pause goes on once every cap has room again
for what the refused request needed: checked by a task deferred to when the cap's period rolls
over, and by every janitor sweep (a cap raised in the settings is seen within one interval).
A glossary pause (``OUTDATED_GLOSSARY = "wait"``) goes on when the glossary sync ends, or at the
next janitor sweep; a run whose glossary is still syncing then pauses again at its first claim.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import schedule
from ..budgets.enforcement import has_room
from ..errors import BudgetExceededError, ErrorCode
from ..models import DeepLGlossary, Run, RunStatus, SyncStatus, UnitStatus
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


def pause_for_glossary(run_id: int, message: str) -> None:
    pause_run(
        run_id,
        code=ErrorCode.GLOSSARY_SYNCING,
        message=f"{message} The run is paused and goes on by itself once the sync ends; "
        "resume it to go on now (then it waits again if the glossary is still syncing).",
    )


def resume_if_glossaries_synced() -> int:
    """Resume the runs paused while a glossary synced, once none is waiting to sync any more
    (synced, or the sync gave up: such a pair warns); how many resumed."""
    if DeepLGlossary.objects.filter(status=SyncStatus.PENDING).exists():
        return 0
    waiting = Run.objects.filter(status=RunStatus.PAUSED, error_code=ErrorCode.GLOSSARY_SYNCING)
    return sum(resume_run(pk) for pk in waiting.values_list("pk", flat=True))


def pause_for_budget(run_id: int, err: BudgetExceededError) -> None:
    """Pause the run for a cap; the first worker to hit it records what it needed."""
    with transaction.atomic():
        paused = pause_run(run_id, code=ErrorCode.BUDGET_EXCEEDED, message=err.message)
        if paused:
            Run.objects.filter(pk=run_id).update(budget_needs=err.needs)
    if paused and err.resumes_at is not None:
        schedule.retry_budget_later(run_id, err.resumes_at)


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


def retry_after_budget(run_id: int) -> bool:
    """Resume the run if it is paused for a budget that has room again; True if it resumed."""
    run = Run.objects.paused_for_budget().filter(pk=run_id).first()
    return run is not None and has_room(run) and resume_run(run_id)
