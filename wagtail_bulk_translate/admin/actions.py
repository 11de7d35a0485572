"""Which actions a run allows now: the run page shows these, the action views enforce them."""

from __future__ import annotations

from ..api import BulkTranslateError, ErrorCode, check_revertible
from ..models import Run, RunStatus
from .progress import Progress

CANCEL, PAUSE, RESUME, RETRY, REVERT, PROMOTE = (
    "cancel",
    "pause",
    "resume",
    "retry",
    "revert",
    "promote",
)
ACTIONS = (CANCEL, PAUSE, RESUME, RETRY, REVERT, PROMOTE)


def allowed_actions(run: Run, progress: Progress) -> list[str]:
    """The actions that make sense for the run in its current state (a few cheap queries)."""
    allowed = []
    if run.status in RunStatus.active:
        allowed.append(CANCEL)
    if run.status in (RunStatus.PENDING, RunStatus.RUNNING):
        allowed.append(PAUSE)
    if run.status == RunStatus.PAUSED:
        allowed.append(RESUME)
    if has_retryable_units(run, progress):
        allowed.append(RETRY)
    if can_revert(run):
        allowed.append(REVERT)
    if can_promote(run):
        allowed.append(PROMOTE)
    return allowed


def has_retryable_units(run: Run, progress: Progress) -> bool:
    if run.status in (RunStatus.CANCELLED, RunStatus.REVERTED):
        return False
    # A run stopped on bad credentials cancelled its pending units: retry brings them back.
    stopped = run.error_code == ErrorCode.AUTH_CONFIG and progress.counts["cancelled"]
    return bool(progress.counts["failed"] or stopped)


def can_revert(run: Run) -> bool:
    if not run.is_finished or run.reverted_at is not None:
        return False
    try:
        check_revertible(run)
    except BulkTranslateError:
        return False
    return True


def can_promote(run: Run) -> bool:
    if run.reverted_at is not None:
        return False
    return run.is_canary and run.is_finished and not run.promotions.exists()
