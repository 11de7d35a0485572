"""What editors do to a run once it exists: cancel it, retry its failed units, promote a canary.

Every transition is a compare-and-set on the run's status, so concurrent calls (two editors, an
editor and a worker) cannot both apply. Pause and resume live in :mod:`..engine.pauses` (the
engine pauses runs too), revert in :mod:`..revert.undo`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from .. import schedule
from ..engine.batch_poll import cancel_run_batches
from ..engine.janitor import keep_janitor_alive
from ..engine.translator_settings import take_current_translator
from ..errors import ErrorCode, RunConfigurationError
from ..models import Run, RunStatus, Unit, UnitQuerySet, UnitStatus
from ..scope.definition import resolve_model
from ..scope.permissions import acting_fields
from .audit import log_run_started
from .filters import check_retry_filters


def cancel_run(run_id: int) -> int:
    """Cancel a run: pending units are cancelled at once; units in flight finish.

    Returns the number of units cancelled. Raises RunConfigurationError if the run is over.
    """
    with transaction.atomic():
        updated = (
            Run.objects.active()
            .filter(pk=run_id)
            .update(status=RunStatus.CANCELLED, finished_at=timezone.now())
        )
        if not updated:
            raise RunConfigurationError("Only a pending, running or paused run can be cancelled.")
        units = Unit.objects.filter(run_id=run_id)
        cancelled = units.cancel_pending(ErrorCode.CANCELLED, "The run was cancelled.")
        transaction.on_commit(schedule.discard_finished_runs_tasks)
    cancel_run_batches(run_id)  # the provider's batches it waits for, at the provider too
    keep_janitor_alive()  # for the other active runs
    return cancelled


def retry_failed(
    run_id: int,
    *,
    models: Iterable[str] = (),
    locales: Iterable[str] = (),
    error_codes: Iterable[str] = (),
    user: Any = None,
) -> int:
    """Send failed units back to work (all, or filtered by model label, locale, error code).

    A finished run reopens. Units whose (object, locale) is in flight in another run stay
    failed. Returns the number of units queued again. From now on the run acts with ``user``'s
    permissions (None: as the system), so units refused to its editor (``not_permitted``)
    come back too, for an editor who has the rights.
    """
    models, locales, error_codes = list(models), list(locales), list(error_codes)
    check_retry_filters(
        Run.objects.get(pk=run_id), models=models, locales=locales, error_codes=error_codes
    )
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.status in (RunStatus.CANCELLED, RunStatus.REVERTED):
            raise RunConfigurationError(f"A {run.status} run cannot be retried.")
        units = failed_units(run, models, locales, error_codes)
        queued = requeue_units(units)
        if not queued:
            return 0
        take_current_translator(run_id, "retry")  # the fix to the settings is what is retried
        # Work waits from now: a heartbeat from before the retry would say no worker came.
        run.heartbeat_at = timezone.now()
        acting = acting_fields(user)
        for name, value in acting.items():
            setattr(run, name, value)
        run.save(update_fields=["heartbeat_at", *acting])
        if run.is_finished:
            run.status, run.finished_at, run.error_code, run.error_message = (
                RunStatus.RUNNING,
                None,
                "",
                "",
            )
            run.save(update_fields=["status", "finished_at", "error_code", "error_message"])
        transaction.on_commit(lambda: schedule.start_workers(run_id, queued))
        transaction.on_commit(schedule.ensure_janitor)
    keep_janitor_alive()
    return queued


def failed_units(
    run: Run, models: Iterable[str], locales: Iterable[str], error_codes: Iterable[str]
) -> UnitQuerySet:
    """The units a retry brings back: failed ones, and those a configuration stop cancelled."""
    units = Unit.objects.filter(
        Q(status=UnitStatus.FAILED) | cancelled_by_stop(run) | WAITING_FOR_PARENT | NOT_PERMITTED,
        run_id=run.pk,
    )
    content_types = [ContentType.objects.get_for_model(resolve_model(label)) for label in models]
    if content_types:
        units = units.filter(content_type__in=content_types)
    if locales := list(locales):
        units = units.filter(target_locale__language_code__in=locales)
    if error_codes := list(error_codes):
        units = units.filter(Q(error_code__in=error_codes) | WAITING_FOR_PARENT)
    return units


# Pages skipped because their parent failed: they come back when their parent is retried
# (and, if it fails again, are skipped again).
WAITING_FOR_PARENT = Q(status=UnitStatus.SKIPPED, error_code=ErrorCode.PARENT_NOT_TRANSLATED)
# Units the run's editor had no right to write: an editor who has it may retry them.
NOT_PERMITTED = Q(status=UnitStatus.SKIPPED, error_code=ErrorCode.NOT_PERMITTED)


def cancelled_by_stop(run: Run) -> Q:
    """Cancelled units that a configuration stop, not an editor, kept from running."""
    if run.status == RunStatus.FAILED and run.error_code == ErrorCode.AUTH_CONFIG:
        # Every unit it had not done yet was cancelled because of the stop: by the stop
        # itself, or by the janitor for units a worker gave back afterwards.
        return Q(status=UnitStatus.CANCELLED)
    return Q(status=UnitStatus.CANCELLED, error_code=ErrorCode.AUTH_CONFIG)


def requeue_units(units: UnitQuerySet) -> int:
    in_flight_elsewhere = Unit.objects.filter(
        object_key=OuterRef("object_key"),
        target_locale_id=OuterRef("target_locale_id"),
        status__in=UnitStatus.in_flight,
    )
    try:
        with transaction.atomic():
            return units.exclude(Exists(in_flight_elsewhere)).requeue()
    except IntegrityError:  # another run claimed one of these objects meanwhile: go one by one
        return sum(requeue_one(pk) for pk in units.values_list("pk", flat=True))


def requeue_one(unit_id: int) -> int:
    try:
        with transaction.atomic():
            return Unit.objects.filter(pk=unit_id).requeue()
    except IntegrityError:
        return 0


def promote_canary(run_id: int, user: Any = None) -> Run:
    """Start the full run of a finished canary, with the same settings.

    The canary's strings are already stored as translations, and its drafts are already
    written, so the full run neither calls the translator for them again nor bills them twice.
    A compare-and-set on the canary row: two editors promoting at the same instant get one full
    run, and the second is told it was already promoted.
    """
    with transaction.atomic():
        lock_canary(run_id)
        canary = Run.objects.prefetch_related("target_locales").get(pk=run_id)
        if not canary.is_canary:
            raise RunConfigurationError("Only a canary run can be promoted.")
        if not canary.is_finished:
            raise RunConfigurationError("Wait for the canary to finish before promoting it.")
        if promoted := canary.promotions.order_by("pk").first():
            raise RunConfigurationError(f"This canary was already promoted to run #{promoted.pk}.")
        run = Run.objects.create(
            scope=canary.scope,
            source_locale_id=canary.source_locale_id,
            mode=canary.mode,
            publish_policy=canary.publish_policy,
            content_source=canary.content_source,
            slug_policy=canary.slug_policy,
            translator_class=canary.translator_class,
            translator_options=canary.translator_options,
            translator_credentials_digest=canary.translator_credentials_digest,
            locale_translators=canary.locale_translators,
            promoted_from=canary,
            created_by=user,
            **acting_fields(user),
            estimated_characters=canary.estimated_characters,
        )
        run.target_locales.set(canary.target_locales.all())
        log_run_started(run, user, promoted_from=canary.pk)
        transaction.on_commit(lambda: schedule.start_coordinator(run.pk))
    return run


def lock_canary(run_id: int) -> None:
    """Write-lock the canary row before checking it was not promoted yet.

    The check then reads what a concurrent promotion committed: PostgreSQL blocks on the row
    lock until it ends, SQLite on its write lock, which an UPDATE takes at once (a SELECT ...
    FOR UPDATE does not lock anything on SQLite). The canary is finished: the UPDATE changes
    nothing it shows.
    """
    Run.objects.filter(pk=run_id).update(canary_size=F("canary_size"))
