"""The coordinator: expands a run's scope into units, in time-budgeted ticks.

Each tick holds the run's coordinator lease (a token + expiry on the run row). A duplicate
delivery of the coordinator task finds the lease held and exits; the tick's own continuation
carries the token, so it is never blocked by its own lease. Each batch of units is inserted in
the same transaction that advances the cursor (fenced by the token), so a tick killed at any
instant resumes exactly after the last committed batch and never creates a unit twice.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone

from ..conf import get_settings
from ..errors import ErrorCode
from ..models import Run, RunStatus, Unit, UnitStatus
from ..scope.enumeration import Batch, Enumerator, Scope
from . import sampling
from .finish import try_finish_run

logger = logging.getLogger(__name__)


class LostCoordinatorLease(Exception):
    """Another coordinator took over this run; this tick must stop without writing."""


@dataclass(frozen=True)
class TickResult:
    ran: bool
    units_created: int = 0
    done: bool = False
    continue_with: str | None = None  # token for the continuation task


def acquire_lease(run_id: int, token: str | None) -> str | None:
    """Take (or renew with our own token) the coordinator lease; None if someone else holds it."""
    lease_seconds = get_settings().LEASE_SECONDS
    expires = Now() + timedelta(seconds=lease_seconds)
    free = Q(coordinator_token__isnull=True) | Q(coordinator_lease_expires_at__lt=Now())
    mine = Q(coordinator_token=token) if token else Q(pk__in=[])
    new_token = token or str(uuid.uuid4())
    updated = (
        Run.objects.filter(pk=run_id, status__in=[RunStatus.PENDING, RunStatus.RUNNING])
        .filter(enumeration_done=False)
        .filter(free | mine)
        .update(coordinator_token=new_token, coordinator_lease_expires_at=expires)
    )
    return new_token if updated else None


def release_lease(run_id: int, token: str) -> None:
    Run.objects.filter(pk=run_id, coordinator_token=token).update(
        coordinator_token=None, coordinator_lease_expires_at=None
    )


def coordinate(run_id: int, token: str | None = None) -> TickResult:
    """Run one coordinator tick for a run: enumerate until the tick's time budget is spent."""
    token = acquire_lease(run_id, token)
    if token is None:
        return TickResult(ran=False)
    Run.objects.filter(pk=run_id, status=RunStatus.PENDING).update(
        status=RunStatus.RUNNING, started_at=timezone.now()
    )
    run = Run.objects.select_related("source_locale").get(pk=run_id)
    conf = get_settings()
    target_ids = list(run.target_locales.values_list("pk", flat=True))
    enumerator = Enumerator(
        Scope.from_json(run.scope), run.source_locale, conf.ENUMERATION_BATCH_SIZE, target_ids
    )
    deadline = time.monotonic() + conf.COORDINATOR_TICK_SECONDS
    cursor, created, done = run.enumeration_cursor, 0, False
    try:
        # At least one batch per tick, however small the budget: every tick makes progress.
        while True:
            batch = enumerator.next_batch(cursor)
            created += commit_batch(run, token, batch, target_ids, cursor)
            cursor, done = batch.cursor, batch.done
            if done or time.monotonic() >= deadline:
                break
    except LostCoordinatorLease:
        logger.info("Run %s: coordinator lease lost, tick stops", run_id)
        return TickResult(ran=True, units_created=created)
    if not done:
        return TickResult(ran=True, units_created=created, continue_with=token)
    finish_enumeration(run, token)
    return TickResult(ran=True, units_created=created, done=True)


def commit_batch(run: Run, token: str, batch: Batch, target_ids: list[int], cursor) -> int:
    """Insert a batch's units and advance the cursor atomically, only while holding the lease."""
    from ..tasks import enqueue_worker_tasks

    with transaction.atomic():
        # The token is the fence: a coordinator that lost its lease, or whose run was paused
        # or cancelled, updates nothing.
        advanced = Run.objects.filter(
            pk=run.pk, coordinator_token=token, status__in=[RunStatus.PENDING, RunStatus.RUNNING]
        ).update(
            enumeration_cursor=batch.cursor,
            coordinator_lease_expires_at=Now() + timedelta(seconds=get_settings().LEASE_SECONDS),
        )
        if not advanced:
            raise LostCoordinatorLease
        pending = create_units(run, batch, target_ids, first_position=cursor_position(cursor))
        Run.objects.filter(pk=run.pk).update(units_total=F("units_total") + pending.total)
        chains = start_worker_chains(run, pending.claimable)
        if chains:
            transaction.on_commit(lambda: enqueue_worker_tasks(run.pk, chains))
    return pending.total


def start_worker_chains(run: Run, claimable: int) -> int:
    """How many worker task chains to start for new units; at most WORKER_CONCURRENCY per run.

    A chain keeps going (re-queuing itself) while the run has work or is still enumerating,
    so the coordinator starts chains once instead of queuing tasks for every batch.
    """
    if not claimable or run.is_canary:
        return 0
    limit = get_settings().WORKER_CONCURRENCY
    running = Run.objects.select_for_update().values_list("worker_chains", flat=True).get(pk=run.pk)
    chains = max(0, min(workers_needed(claimable), limit - running))
    if chains:
        Run.objects.filter(pk=run.pk).update(worker_chains=F("worker_chains") + chains)
    return chains


def cursor_position(cursor) -> int:
    return (cursor or {}).get("position", 0)


@dataclass(frozen=True)
class CreatedUnits:
    total: int
    claimable: int


def create_units(run: Run, batch: Batch, target_ids: list[int], first_position: int):
    """Bulk-insert one unit per (object, target locale) of a batch.

    Units of a canary run start as skipped (not sampled) and the sample is promoted to pending
    once enumeration ends. A unit whose (object, locale) is already in flight in another run is
    recorded as skipped, never raised: the partial unique constraint makes the insert a no-op.
    """
    initial = UnitStatus.SKIPPED if run.is_canary else UnitStatus.PENDING
    code = ErrorCode.CANARY_NOT_SAMPLED if run.is_canary else ""
    wanted = [
        Unit(
            run_id=run.pk,
            position=first_position + index,
            content_type_id=obj.content_type_id,
            object_id=obj.object_id,
            object_key=obj.object_key,
            target_locale_id=locale_id,
            status=initial,
            error_code=code,
        )
        for index, obj in enumerate(batch.objects)
        for locale_id in target_ids
        if locale_id != run.source_locale_id
        and (obj.target_locale_ids is None or locale_id in obj.target_locale_ids)
    ]
    if not wanted:
        return CreatedUnits(0, 0)
    Unit.objects.bulk_create(wanted, ignore_conflicts=True)
    inserted = set(
        Unit.objects.filter(
            run_id=run.pk, position__gte=first_position, position__lt=batch.cursor["position"]
        ).values_list("object_key", "target_locale_id")
    )
    duplicates = [u for u in wanted if (u.object_key, u.target_locale_id) not in inserted]
    for unit in duplicates:
        unit.status = UnitStatus.SKIPPED
        unit.error_code = ErrorCode.DUPLICATE_IN_FLIGHT
        unit.error_message = "Another run is already translating this object into this locale."
        unit.finished_at = timezone.now()
    Unit.objects.bulk_create(duplicates, ignore_conflicts=True)
    # An object the scope names twice exists once: count rows, not wishes.
    total = Unit.objects.filter(
        run_id=run.pk, position__gte=first_position, position__lt=batch.cursor["position"]
    ).count()
    claimable = len(wanted) - len(duplicates) if initial == UnitStatus.PENDING else 0
    return CreatedUnits(total, claimable)


def finish_enumeration(run: Run, token: str) -> None:
    """Mark enumeration done (the unit total is final from here), sample a canary, finish."""
    from ..tasks import enqueue_workers

    with transaction.atomic():
        updated = Run.objects.filter(pk=run.pk, coordinator_token=token).update(
            enumeration_done=True, coordinator_token=None, coordinator_lease_expires_at=None
        )
        if not updated:
            return
        sampled = promote_canary_sample(run) if run.is_canary else 0
        if sampled:
            transaction.on_commit(lambda: enqueue_workers(run.pk, sampled))
    try_finish_run(run.pk)


def promote_canary_sample(run: Run) -> int:
    """Turn the sampled units of a canary run into pending work; returns how many."""
    promoted = 0
    sample = sampling.choose_sample(run.pk, run.canary_size or 0)
    for unit_id in [*ancestor_units(run, sample), *sample]:
        try:
            with transaction.atomic():
                promoted += Unit.objects.filter(pk=unit_id).update(
                    status=UnitStatus.PENDING, error_code=""
                )
        except IntegrityError:  # in flight in another run meanwhile
            Unit.objects.filter(pk=unit_id).update(
                error_code=ErrorCode.DUPLICATE_IN_FLIGHT,
                error_message="Another run is already translating this object into this locale.",
                finished_at=timezone.now(),
            )
    return promoted


def ancestor_units(run: Run, unit_ids: list[int]) -> list[int]:
    """Units of the run for the ancestors of sampled pages, in the same locales.

    A sampled page can only be written under its parent's translation, so a canary also
    translates (as drafts) the parents it needs, instead of failing the sampled page.
    """
    from django.contrib.contenttypes.models import ContentType
    from wagtail.models import Page

    page_type_ids = {
        ct.pk
        for ct in ContentType.objects.filter(
            pk__in=Unit.objects.filter(pk__in=unit_ids).values("content_type_id")
        )
        if ct.model_class() and issubclass(ct.model_class(), Page)
    }
    sampled = Unit.objects.filter(pk__in=unit_ids, content_type_id__in=page_type_ids)
    paths = dict(
        Page.objects.filter(pk__in=[int(u.object_id) for u in sampled]).values_list("pk", "path")
    )
    wanted: set[tuple[str, int]] = set()
    for unit in sampled:
        path = paths.get(int(unit.object_id), "")
        for end in range(2 * Page.steplen, len(path), Page.steplen):
            wanted.add((path[:end], unit.target_locale_id))
    if not wanted:
        return []
    ancestor_keys = dict(
        Page.objects.filter(path__in={p for p, _ in wanted}).values_list("path", "translation_key")
    )
    keys = {(ancestor_keys[p], locale) for p, locale in wanted if p in ancestor_keys}
    candidates = Unit.objects.filter(
        run_id=run.pk,
        object_key__in={key for key, _ in keys},
        status=UnitStatus.SKIPPED,
        error_code=ErrorCode.CANARY_NOT_SAMPLED,
    ).order_by("position")
    return [u.pk for u in candidates if (u.object_key, u.target_locale_id) in keys]


def workers_needed(claimable_units: int) -> int:
    conf = get_settings()
    return min(conf.WORKER_CONCURRENCY, math.ceil(claimable_units / conf.UNITS_PER_CLAIM))
