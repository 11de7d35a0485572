"""Revert: undo what a run wrote, exactly, without clobbering later edits.

Each unit the run wrote kept a snapshot of its target from before the write (content, live
status, revisions), the StringTranslations it created or changed, and a fingerprint of the
target right after the write. Reverting a unit:

* refuses, with a reason, when the target changed since the run wrote it (a later edit or a
  later run): the editor's work is never clobbered;
* deletes targets the run created (children before parents), with their wagtail-localize
  translation record;
* restores other targets' content, live status and revisions pointers from the snapshot;
* puts back the StringTranslations the run changed and deletes the ones it created.

Units are reverted one per transaction, newest tree positions first, in a background task.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta

from django.db import models, transaction
from django.utils import timezone
from wagtail.models import DraftStateMixin, Page, RevisionMixin

from .. import schedule
from ..conf import get_settings
from ..errors import RunConfigurationError
from ..localize.sources import delete_translation_record, forget_logged_writes_after
from ..localize.strings import restore_string_translations
from ..models import Run, RunStatus, Unit, UnitQuerySet, UnitStatus
from ..objects import find_object
from .snapshots import restore, row_fingerprint
from .state import RevertState

REVERTIBLE = (RunStatus.SUCCEEDED, RunStatus.PARTIAL, RunStatus.FAILED, RunStatus.CANCELLED)
BATCH_SIZE = 50


class RevertRefused(Exception):
    """This unit's target cannot be reverted; the message says why."""


def start_revert(run_id: int) -> Run:
    """Check a run can be reverted, mark it, and queue the background revert."""
    run = Run.objects.get(pk=run_id)
    check_revertible(run)
    with transaction.atomic():
        started = Run.objects.filter(pk=run_id, reverted_at__isnull=True).update(
            reverted_at=timezone.now()
        )
        if not started:
            raise RunConfigurationError("This run is already being reverted.")
        transaction.on_commit(lambda: schedule.revert_in_background(run_id))
    run.refresh_from_db()
    return run


def check_revertible(run: Run) -> None:
    if run.status == RunStatus.REVERTED or run.reverted_at is not None:
        raise RunConfigurationError("This run was already reverted.")
    if run.status not in REVERTIBLE:
        raise RunConfigurationError("Only a finished run can be reverted; cancel it first.")
    if run.units.filter(status__in=UnitStatus.in_flight).exists():
        raise RunConfigurationError("Units of this run are still in flight; try again shortly.")
    window = timedelta(days=get_settings().REVERT_WINDOW_DAYS)
    if run.finished_at is None or run.finished_at < timezone.now() - window:
        raise RunConfigurationError(
            f"Runs can be reverted for {get_settings().REVERT_WINDOW_DAYS:g} days after they "
            "finish; this one is older."
        )


def revert_and_continue(run_id: int) -> bool:
    """One revert task: revert for a time budget, then queue the rest; True when all are done."""
    done = revert_some(run_id, get_settings().WORKER_TIME_BUDGET_SECONDS)
    if not done:
        schedule.revert_in_background(run_id)
    return done


def revert_some(run_id: int, time_budget: float = 30) -> bool:
    """Revert units of a run for up to ``time_budget`` seconds; True when all are done."""
    deadline = time.monotonic() + time_budget
    while time.monotonic() < deadline:
        batch = list(units_to_revert(run_id)[:BATCH_SIZE])
        if not batch:
            Run.objects.filter(pk=run_id).update(status=RunStatus.REVERTED)
            return True
        for unit in batch:
            revert_unit(unit)
    return False


def units_to_revert(run_id: int) -> UnitQuerySet:
    return (
        Unit.objects.filter(
            run_id=run_id,
            status=UnitStatus.SUCCEEDED,
            reverted_at__isnull=True,
            revert_refused="",
        )
        .exclude(revert_state__isnull=True)
        .select_related("content_type", "target_locale")
        .order_by("-position", "target_locale_id")
    )


def revert_unit(unit: Unit) -> bool:
    """Revert one unit in its own transaction; False (and the reason recorded) if refused."""
    try:
        with transaction.atomic():
            undo_write(unit)
            Unit.objects.filter(pk=unit.pk).update(reverted_at=timezone.now())
        return True
    except RevertRefused as refusal:
        Unit.objects.filter(pk=unit.pk).update(revert_refused=str(refusal))
        return False


def undo_write(unit: Unit) -> None:
    state = RevertState.from_json(unit.revert_state or {})
    target = load_target(unit)
    if target is None:
        if state.target_created:
            restore_string_translations(state.strings, unit.target_locale_id)
            return
        raise RevertRefused("The target was deleted after the run; nothing to restore.")
    if state.written and row_fingerprint(target) != state.written:
        raise RevertRefused("The target changed after this run wrote it; it was left as it is.")
    if state.target_created:
        delete_target(unit, target, state)
    else:
        restore_target(target, state)
        if isinstance(target, RevisionMixin):
            forget_logged_writes_after(
                unit.object_key, unit.target_locale_id, state.before.latest_revision_id
            )
    restore_string_translations(state.strings, unit.target_locale_id)


def load_target(unit: Unit) -> models.Model | None:
    if not unit.target_object_id:
        return None
    model = unit.content_type.model_class()
    return find_object(model, unit.target_object_id) if model is not None else None


def delete_target(unit: Unit, target: models.Model, state: RevertState) -> None:
    if isinstance(target, Page) and target.get_children().exists():
        raise RevertRefused(
            "Pages under this page were kept (added or edited after the run), so it was kept too."
        )
    target.delete()
    if state.translation_created:
        delete_translation_record(unit.object_key, unit.target_locale_id)


def restore_target(target: models.Model, state: RevertState) -> None:
    before = state.before
    restore(target, before.content or {})
    if isinstance(target, RevisionMixin):
        target.latest_revision_id = before.latest_revision_id
    if isinstance(target, DraftStateMixin) and before.live is not None:
        target.live = before.live
        target.live_revision_id = before.live_revision_id
    if isinstance(target, Page):
        target.has_unpublished_changes = bool(before.has_unpublished_changes)
        target.save(clean=False)
    else:
        target.save()


@dataclass(frozen=True)
class RevertSummary:
    reverted: int
    refused: int
    remaining: int


def revert_summary(run: Run) -> RevertSummary:
    units = run.units.filter(status=UnitStatus.SUCCEEDED).exclude(revert_state__isnull=True)
    return RevertSummary(
        reverted=units.filter(reverted_at__isnull=False).count(),
        refused=units.exclude(revert_refused="").count(),
        remaining=units.filter(reverted_at__isnull=True, revert_refused="").count(),
    )
