"""The coordinator: expands a run's scope into units, in time-budgeted ticks.

Each tick holds the run's coordinator lease (a token + expiry on the run row). A duplicate
delivery of the coordinator task finds the lease held and exits; the tick's own continuation
carries the token, so it is never blocked by its own lease. Each batch of units is inserted in
the same transaction that advances the cursor (fenced by the token), so a tick killed at any
instant resumes exactly after the last committed batch and never creates a unit twice.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.functions import Now
from django.utils import timezone

from .. import schedule
from ..conf import get_settings
from ..errors import ErrorCode
from ..models import Run, RunStatus, Unit, UnitStatus
from ..scope.definition import Scope
from ..scope.enumeration import Batch, Enumerator
from .finish import try_finish_run
from .leases import take_lease
from .sampling import DUPLICATE_MESSAGE, promote_canary_sample

logger = logging.getLogger(__name__)


DONE_ELSEWHERE_MESSAGE = (
    "Run #{run_id}, started at about the same time, already translated this object into this "
    "locale."
)


class LostCoordinatorLease(Exception):
    """Another coordinator took over this run; this tick must stop without writing."""


@dataclass(frozen=True)
class TickResult:
    ran: bool
    units_created: int = 0
    done: bool = False
    continue_with: str | None = None  # token for the continuation task


LEASE_FIELDS = {"token_field": "coordinator_token", "expiry_field": "coordinator_lease_expires_at"}


def acquire_lease(run_id: int, token: str | None) -> str | None:
    """Take (or renew with our own token) the coordinator lease; None if someone else holds it."""
    runs = Run.objects.in_progress().filter(pk=run_id, enumeration_done=False)
    return take_lease(runs, token, get_settings().LEASE_SECONDS, **LEASE_FIELDS)


def coordinate_and_continue(run_id: int, token: str | None = None) -> dict[str, Any]:
    """One coordinator task: a tick, then its continuation (with the lease token) if needed."""
    result = coordinate(run_id, token)
    if result.continue_with:
        schedule.continue_coordinator(run_id, result.continue_with)
    return {"ran": result.ran, "units_created": result.units_created, "done": result.done}


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


def commit_batch(run: Run, token: str, batch: Batch, target_ids: list[int], cursor: Any) -> int:
    """Insert a batch's units and advance the cursor atomically, only while holding the lease."""
    with transaction.atomic():
        # The token is the fence: a coordinator that lost its lease, or whose run was paused
        # or cancelled, updates nothing.
        advanced = (
            Run.objects.in_progress()
            .filter(pk=run.pk, coordinator_token=token)
            .update(
                enumeration_cursor=batch.cursor,
                coordinator_lease_expires_at=Now()
                + timedelta(seconds=get_settings().LEASE_SECONDS),
            )
        )
        if not advanced:
            raise LostCoordinatorLease
        pending = create_units(run, batch, target_ids, first_position=cursor_position(cursor))
        Run.objects.filter(pk=run.pk).update(units_total=F("units_total") + pending.total)
        chains = start_worker_chains(run, pending.claimable)
        if chains:
            transaction.on_commit(lambda: schedule.start_worker_chains(run.pk, chains))
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
    chains = max(0, min(schedule.workers_needed(claimable), limit - running))
    if chains:
        Run.objects.filter(pk=run.pk).update(worker_chains=F("worker_chains") + chains)
    return chains


def cursor_position(cursor: Any) -> int:
    return (cursor or {}).get("position", 0)


@dataclass(frozen=True)
class CreatedUnits:
    total: int
    claimable: int


def create_units(
    run: Run, batch: Batch, target_ids: list[int], first_position: int
) -> CreatedUnits:
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
        unit.error_message = DUPLICATE_MESSAGE
        unit.finished_at = timezone.now()
    Unit.objects.bulk_create(duplicates, ignore_conflicts=True)
    batch_units = Unit.objects.filter(
        run_id=run.pk, position__gte=first_position, position__lt=batch.cursor["position"]
    )
    done_elsewhere = skip_done_by_overlapping_runs(run, batch_units)
    # An object the scope names twice exists once: count rows, not wishes.
    total = batch_units.count()
    claimable = len(wanted) - len(duplicates) - done_elsewhere
    return CreatedUnits(total, claimable if initial == UnitStatus.PENDING else 0)


def skip_done_by_overlapping_runs(run: Run, units: Any) -> int:
    """Skip the new units whose (object, locale) a run overlapping this one already wrote.

    The in-flight constraint only sees units still pending or running: a run started at about
    the same time may already have finished the object by the time this one enumerates it.
    Checked after the insert, in the same transaction: a unit of the other run that finished
    meanwhile had to commit before our insert got past its in-flight row, so it is seen here.
    """
    overlapping = Q(run__finished_at__isnull=True) | Q(run__finished_at__gte=run.created_at)
    done = (
        Unit.objects.filter(
            overlapping,
            status=UnitStatus.SUCCEEDED,
            object_key=OuterRef("object_key"),
            target_locale_id=OuterRef("target_locale_id"),
        )
        .exclude(run_id=run.pk)
        .order_by("run_id")
    )
    ours = units.filter(status=UnitStatus.PENDING).annotate(
        done_by=Subquery(done.values("run_id")[:1])
    )
    skipped = 0
    for other_run_id in set(ours.exclude(done_by=None).values_list("done_by", flat=True)):
        skipped += ours.filter(done_by=other_run_id).update(
            status=UnitStatus.SKIPPED,
            error_code=ErrorCode.DUPLICATE_IN_FLIGHT,
            error_message=DONE_ELSEWHERE_MESSAGE.format(run_id=other_run_id),
            finished_at=Now(),
        )
    return skipped


def finish_enumeration(run: Run, token: str) -> None:
    """Mark enumeration done (the unit total is final from here), sample a canary, finish."""
    with transaction.atomic():
        updated = Run.objects.filter(pk=run.pk, coordinator_token=token).update(
            enumeration_done=True, coordinator_token=None, coordinator_lease_expires_at=None
        )
        if not updated:
            return
        sampled = promote_canary_sample(run) if run.is_canary else 0
        if sampled:
            transaction.on_commit(lambda: schedule.start_workers(run.pk, sampled))
    try_finish_run(run.pk)
