"""How runs end: finished when their last unit is (a compare-and-set), or stopped early."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.db.models import Exists, Min, OuterRef
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from ..models import Run, RunStatus, Unit, UnitStatus
from ..models.tally_writes import Groups, recount_tally, sums_of
from .claims import release_claim
from .trees import repair_run_trees

logger = logging.getLogger(__name__)


def final_status(counts: dict[str, int]) -> str:
    if counts[UnitStatus.FAILED] == 0:
        return RunStatus.SUCCEEDED
    if counts[UnitStatus.SUCCEEDED]:
        return RunStatus.PARTIAL
    return RunStatus.FAILED


def status_counts(groups: Groups) -> dict[str, int]:
    """Units per status of tally groups, every status present."""
    counts = dict.fromkeys(UnitStatus.values, 0)
    for key, (units, _strings, _billed) in groups.items():
        counts[key[3]] += units
    return counts


def try_finish_run(run_id: int) -> bool:
    """Finish a run whose enumeration is done and whose units are all terminal.

    A compare-and-set on the run row: whichever worker sees the last unit end first wins, the
    others update nothing. Returns True for the caller that finished it.
    """
    run = Run.objects.filter(pk=run_id).first()
    if run is None or run.status not in RunStatus.in_progress:
        return False
    if not run.enumeration_done:
        return False
    in_flight = Unit.objects.filter(run_id=OuterRef("pk"), status__in=UnitStatus.in_flight)
    if Unit.objects.filter(run_id=run_id, status__in=UnitStatus.in_flight).exists():
        return False
    # The run looks over: its units are counted once, exactly, and the tally rebuilt from
    # them, so a tally that drifted (a write that bypassed it) is repaired when the run ends.
    groups = recount_tally(run_id)
    counts, totals = status_counts(groups), sums_of(groups)
    updated = (
        Run.objects.filter(pk=run_id, status=run.status, enumeration_done=True)
        .exclude(Exists(in_flight))
        .update(status=final_status(counts), finished_at=timezone.now(), **totals)
    )
    if updated:
        check_trees(run_id)
    return bool(updated)


def check_trees(run_id: int) -> None:
    """Check and repair the page subtrees the run wrote (its finisher does it, once)."""
    try:
        repair_run_trees(run_id)
    except Exception:  # the run is over either way; a failed check must not hide that
        logger.exception("Run %s: checking the page tree failed", run_id)


def stop_run(run_id: int, code: str, message: str, *, release_token: str | None = None) -> bool:
    """End a run early with one clear reason (bad credentials, bad configuration).

    Its pending units are cancelled with the same reason instead of failing one by one, in the
    transaction that stops the run. ``release_token``: the caller's claim, whose open units are
    given back and cancelled with the rest. A second worker hitting the same error after the
    run stopped cancels what it gives back too, so no unit stays pending in a stopped run.
    Returns True for the caller that stopped the run.
    """
    with transaction.atomic():
        if release_token is not None:
            release_claim(release_token)
        updated = (
            Run.objects.active()
            .filter(pk=run_id)
            .update(
                status=RunStatus.FAILED,
                error_code=code,
                error_message=message,
                finished_at=timezone.now(),
            )
        )
        if updated or not Run.objects.active().filter(pk=run_id).exists():
            Unit.objects.filter(run_id=run_id).cancel_pending(code, f"Not attempted: {message}")
    if updated:
        check_trees(run_id)
    return bool(updated)


def next_wakeup(run_id: int) -> datetime | None:
    """When a unit of a running run next becomes claimable (None: nothing left to claim)."""
    if not Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists():
        return None
    units = Unit.objects.filter(run_id=run_id)
    pending = units.filter(status=UnitStatus.PENDING, waiting_batch__isnull=True).aggregate(
        first=Min(Coalesce("available_after", Now()))
    )["first"]
    held = units.filter(status=UnitStatus.RUNNING).aggregate(first=Min("lease_expires_at"))["first"]
    candidates = [t for t in (pending, held) if t is not None]
    return min(candidates) if candidates else None
