"""What editors (admin, command line) and the engine do to a run once it exists.

Cancel, pause/resume, stop on a configuration error, retry failed units and promote a canary.
Every transition is a compare-and-set on the run's status, so concurrent calls (two editors, an
editor and a worker) cannot both apply. Revert lives in :mod:`wagtail_bulk_translate.revert`.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Now
from django.utils import timezone

from ..errors import ErrorCode, RunConfigurationError
from ..models import Run, RunStatus, Unit, UnitStatus
from ..scope.enumeration import resolve_model

ACTIVE = (RunStatus.PENDING, RunStatus.RUNNING)


def cancel_run(run_id: int) -> int:
    """Cancel a run: pending units are cancelled at once; units in flight finish.

    Returns the number of units cancelled. Raises RunConfigurationError if the run is over.
    """
    with transaction.atomic():
        updated = Run.objects.filter(pk=run_id, status__in=[*ACTIVE, RunStatus.PAUSED]).update(
            status=RunStatus.CANCELLED, finished_at=timezone.now()
        )
        if not updated:
            raise RunConfigurationError("Only a pending, running or paused run can be cancelled.")
        return cancel_pending_units(run_id, ErrorCode.CANCELLED, "The run was cancelled.")


def cancel_pending_units(run_id: int, code: str, message: str) -> int:
    return Unit.objects.filter(run_id=run_id, status=UnitStatus.PENDING).update(
        status=UnitStatus.CANCELLED,
        error_code=code,
        error_message=message,
        finished_at=timezone.now(),
    )


def pause_run(run_id: int, *, code: str = "", message: str = "") -> bool:
    """Stop handing out work; units in flight finish. False if the run was not active."""
    # heartbeat_at marks when it paused: the janitor retries quota pauses after a while.
    return bool(
        Run.objects.filter(pk=run_id, status__in=ACTIVE).update(
            status=RunStatus.PAUSED, error_code=code, error_message=message, heartbeat_at=Now()
        )
    )


def resume_run(run_id: int) -> bool:
    """Resume a paused run: its coordinator (if enumeration was cut short) and workers."""
    from ..tasks import enqueue_coordinator, enqueue_workers, ensure_janitor

    with transaction.atomic():
        updated = Run.objects.filter(pk=run_id, status=RunStatus.PAUSED).update(
            status=RunStatus.RUNNING,
            error_code="",
            error_message="",
            coordinator_token=None,
            coordinator_lease_expires_at=None,
            heartbeat_at=timezone.now(),
        )
        if not updated:
            return False
        run = Run.objects.get(pk=run_id)
        claimable = run.units.filter(status=UnitStatus.PENDING).count()
        transaction.on_commit(lambda: enqueue_workers(run_id, max(claimable, 1)))
        transaction.on_commit(ensure_janitor)
        if not run.enumeration_done:
            transaction.on_commit(lambda: enqueue_coordinator(run_id))
    return True


def stop_run(run_id: int, code: str, message: str) -> bool:
    """End a run early with one clear reason (bad credentials, bad configuration).

    Its pending units are cancelled with the same reason instead of failing one by one.
    """
    with transaction.atomic():
        updated = Run.objects.filter(pk=run_id, status__in=[*ACTIVE, RunStatus.PAUSED]).update(
            status=RunStatus.FAILED,
            error_code=code,
            error_message=message,
            finished_at=timezone.now(),
        )
        if updated:
            cancel_pending_units(run_id, code, f"Not attempted: {message}")
    return bool(updated)


def retry_failed(
    run_id: int,
    *,
    models: Iterable[str] = (),
    locales: Iterable[str] = (),
    error_codes: Iterable[str] = (),
) -> int:
    """Send failed units back to work (all, or filtered by model label, locale, error code).

    A finished run reopens. Units whose (object, locale) is in flight in another run stay
    failed. Returns the number of units queued again.
    """
    from ..tasks import enqueue_workers, ensure_janitor

    units = failed_units(run_id, models, locales, error_codes)
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.status in (RunStatus.CANCELLED, RunStatus.REVERTED):
            raise RunConfigurationError(f"A {run.status} run cannot be retried.")
        queued = requeue_units(units)
        if not queued:
            return 0
        if run.is_finished:
            run.status, run.finished_at, run.error_code, run.error_message = (
                RunStatus.RUNNING,
                None,
                "",
                "",
            )
            run.save(update_fields=["status", "finished_at", "error_code", "error_message"])
        transaction.on_commit(lambda: enqueue_workers(run_id, queued))
        transaction.on_commit(ensure_janitor)
    return queued


def failed_units(run_id: int, models: Iterable[str], locales: Iterable[str], error_codes):
    # Units a configuration error stopped before they ran come back with the failed ones.
    units = Unit.objects.filter(
        Q(status=UnitStatus.FAILED)
        | Q(status=UnitStatus.CANCELLED, error_code=ErrorCode.AUTH_CONFIG),
        run_id=run_id,
    )
    content_types = [content_type_for(label) for label in models]
    if content_types:
        units = units.filter(content_type__in=content_types)
    if locales := list(locales):
        units = units.filter(target_locale__language_code__in=locales)
    if error_codes := list(error_codes):
        units = units.filter(error_code__in=error_codes)
    return units


def content_type_for(label: str):
    from django.contrib.contenttypes.models import ContentType

    model = resolve_model(label)
    return ContentType.objects.get_for_model(model)


def requeue_units(units) -> int:
    in_flight_elsewhere = Unit.objects.filter(
        object_key=OuterRef("object_key"),
        target_locale_id=OuterRef("target_locale_id"),
        status__in=UnitStatus.in_flight,
    )
    try:
        with transaction.atomic():
            return units.exclude(Exists(in_flight_elsewhere)).update(
                status=UnitStatus.PENDING,
                attempts=0,
                available_after=None,
                error_code="",
                error_message="",
                finished_at=None,
            )
    except IntegrityError:  # another run claimed one of these objects meanwhile: go one by one
        return sum(requeue_one(pk) for pk in units.values_list("pk", flat=True))


def requeue_one(unit_id: int) -> int:
    try:
        with transaction.atomic():
            return Unit.objects.filter(pk=unit_id).update(
                status=UnitStatus.PENDING,
                attempts=0,
                available_after=None,
                error_code="",
                error_message="",
                finished_at=None,
            )
    except IntegrityError:
        return 0


def promote_canary(run_id: int, user=None) -> Run:
    """Start the full run of a finished canary, with the same settings.

    The canary's strings are already stored as translations, and its drafts are already
    written, so the full run neither calls the translator for them again nor bills them twice.
    """
    from ..tasks import enqueue_coordinator

    canary = Run.objects.prefetch_related("target_locales").get(pk=run_id)
    if not canary.is_canary:
        raise RunConfigurationError("Only a canary run can be promoted.")
    if not canary.is_finished:
        raise RunConfigurationError("Wait for the canary to finish before promoting it.")
    if canary.promotions.exists():
        raise RunConfigurationError("This canary was already promoted.")
    with transaction.atomic():
        run = Run.objects.create(
            scope=canary.scope,
            source_locale_id=canary.source_locale_id,
            mode=canary.mode,
            publish_policy=canary.publish_policy,
            content_source=canary.content_source,
            slug_policy=canary.slug_policy,
            translator_class=canary.translator_class,
            translator_options=canary.translator_options,
            promoted_from=canary,
            created_by=user,
        )
        run.target_locales.set(canary.target_locales.all())
        transaction.on_commit(lambda: enqueue_coordinator(run.pk))
    return run
