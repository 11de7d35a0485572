"""Claiming units: pending → running atomically, with a lease and a fencing token.

A claim takes the lowest positions first (tree order, parents before children) and whole
objects (every claimable locale of an object), so the work shared by the locales of one object
is done once. Units whose worker died (lease expired) come back in claims of half the size,
down to one (a kill is not the fault of every unit that shared the worker); only a unit whose
worker died while it was processed alone, ``MAX_ATTEMPTS`` times, fails, so no unit stays
running forever and a healthy unit never fails for sharing a claim with one that kills workers.

Every later change to a claimed unit is fenced by the token: it only applies while the unit is
still running under that token, so a worker that lost its lease can never overwrite a newer
attempt.
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Now

from ..conf import get_settings
from ..errors import ErrorCode
from ..models import (
    EXPIRED_LEASE,
    LEASE_EXPIRED_MESSAGE,
    READY,
    Run,
    RunStatus,
    Unit,
    UnitQuerySet,
    UnitStatus,
)

if TYPE_CHECKING:
    from .work import UnitWork


@dataclass
class Claim:
    """The units one worker holds under one lease token, and what happened to them."""

    run: Run
    token: str
    transient_failures: int = 0
    renewed_at: float = field(default_factory=time.monotonic)

    def keep_lease(self) -> None:
        """Renew the lease once a third of it has gone by, so long claims stay owned."""
        if time.monotonic() - self.renewed_at > get_settings().LEASE_SECONDS / 3:
            renew_leases(self.token)
            self.renewed_at = time.monotonic()


def lease_expiry() -> Any:
    return Now() + timedelta(seconds=get_settings().LEASE_SECONDS)


def claim_units(run_id: int, limit: int, token: str | None = None) -> tuple[str, list[Unit]]:
    """Claim up to ``limit`` units (rounded up to whole objects) of a running run.

    Units that came back from a dead worker bring their own, smaller limit, and are not
    rounded up to whole objects. With ``token`` (a claim of this worker's) the units join that
    claim, under its lease: only the newly claimed units are returned, and never one of those
    (they must stay in claims no larger than their limit).
    """
    joining = token is not None
    token = token or str(uuid.uuid4())
    with transaction.atomic():
        if not Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists():
            return token, []
        recover_expired_leases(Unit.objects.filter(run_id=run_id))
        candidates = Unit.objects.filter(run_id=run_id).filter(READY)
        if joining:
            candidates = candidates.filter(claim_limit__isnull=True)
        rows = list(
            candidates.order_by("position", "target_locale_id")
            .select_for_update(skip_locked=True)
            .values_list("pk", "position", "claim_limit")[:limit]
        )
        first = within_claim_limits(rows, limit)
        if not first:
            return token, []
        ids = set(first)
        if len(first) == len(rows) and all(claim_limit is None for *_, claim_limit in rows):
            positions = {position for _pk, position, _claim_limit in rows}
            ids |= set(
                candidates.filter(position__in=positions, claim_limit__isnull=True)
                .select_for_update(skip_locked=True)
                .values_list("pk", flat=True)
            )
        Unit.objects.filter(pk__in=ids).filter(READY).update(
            status=UnitStatus.RUNNING,
            attempts=F("attempts") + 1,
            lease_token=token,
            lease_expires_at=lease_expiry(),
            available_after=None,
            started_at=Now(),
        )
        Run.objects.filter(pk=run_id).update(heartbeat_at=Now())
        units = list(
            Unit.objects.filter(pk__in=ids, lease_token=token)
            .select_related("target_locale", "content_type")
            .order_by("position", "target_locale_id")
        )
    return token, units


def within_claim_limits(rows: list[tuple[int, int, int | None]], limit: int) -> list[int]:
    """The first units of ``rows`` (pk, position, claim limit) that fit in one claim: no unit
    may end up in a claim larger than its own limit."""
    taken: list[int] = []
    for pk, _position, claim_limit in rows:
        limit = min(limit, claim_limit or limit)
        if len(taken) >= limit:
            break
        taken.append(pk)
    return taken


def recover_expired_leases(units: UnitQuerySet) -> tuple[int, int]:
    """Return units whose worker died to work, in smaller claims; (returned, failed).

    Every unit of a claim shares its worker's fate, so a kill is not the fault of any one of
    them: their attempt is given back and they come back in claims of half the size, down to
    one. A unit whose worker died while it was processed alone took it down itself: that
    attempt counts, and once its attempts are spent it fails.
    """
    claims_of: dict[Any, list[tuple[int, int]]] = defaultdict(list)
    for pk, token, attempts in units.expired_leases().values_list("pk", "lease_token", "attempts"):
        claims_of[token].append((pk, attempts))
    returned = failed = 0
    for token, members in claims_of.items():
        if len(members) > 1:
            returned += return_to_work(token, [pk for pk, _ in members], len(members) // 2, -1)
        elif members[0][1] >= get_settings().MAX_ATTEMPTS:
            failed += fail_lone_crasher(token, members[0][0])
        else:
            returned += return_to_work(token, [members[0][0]], 1, 0)
    return returned, failed


def expired_under(token: Any, ids: list[int]) -> UnitQuerySet:
    # Fenced by the dead token: of two sweeps recovering the same claim, one applies.
    return Unit.objects.filter(pk__in=ids, lease_token=token).filter(EXPIRED_LEASE)


def return_to_work(token: Any, ids: list[int], claim_limit: int, attempts_delta: int) -> int:
    return expired_under(token, ids).update(
        status=UnitStatus.PENDING,
        claim_limit=claim_limit,
        attempts=F("attempts") + attempts_delta,
        lease_token=None,
        lease_expires_at=None,
    )


def fail_lone_crasher(token: Any, unit_id: int) -> int:
    return expired_under(token, [unit_id]).update(
        status=UnitStatus.FAILED,
        error_code=ErrorCode.LEASE_EXPIRED,
        error_message=LEASE_EXPIRED_MESSAGE,
        lease_token=None,
        lease_expires_at=None,
        finished_at=Now(),
    )


def held(unit: Unit, token: str) -> UnitQuerySet:
    """The unit, only while this worker still holds its lease (the fence)."""
    return Unit.objects.filter(pk=unit.pk, lease_token=token, status=UnitStatus.RUNNING)


def held_under(token: str) -> UnitQuerySet:
    return Unit.objects.filter(lease_token=token, status=UnitStatus.RUNNING)


def release_unit(unit: Unit, token: str, delay_seconds: float) -> None:
    """Give a claimed unit back without counting the attempt (e.g. its parent isn't written)."""
    held(unit, token).update(
        status=UnitStatus.PENDING,
        attempts=F("attempts") - 1,
        lease_token=None,
        lease_expires_at=None,
        available_after=Now() + timedelta(seconds=delay_seconds),
    )


def wake_waiting(units: UnitQuerySet) -> int:
    """Make claimable now those of ``units`` that were given back to wait (for a parent page).

    A unit backing off after an error keeps its error code until it succeeds: it is left to
    serve its back-off, so waking never makes a retry hammer the translator.
    """
    return units.filter(status=UnitStatus.PENDING, error_code="", available_after__gt=Now()).update(
        available_after=None
    )


def release_claim(token: str) -> int:
    """Give back every unit still held under ``token`` (the run paused or stopped mid-claim)."""
    return held_under(token).update(
        status=UnitStatus.PENDING,
        attempts=F("attempts") - 1,
        lease_token=None,
        lease_expires_at=None,
        available_after=None,
    )


def renew_leases(token: str) -> int:
    """Extend the lease of every unit held under ``token`` (long claims stay owned)."""
    return held_under(token).update(lease_expires_at=lease_expiry())


def renew_unlocked_leases(token: str) -> int:
    """:func:`renew_leases`, skipping the units whose row is locked (the claim's own worker is
    writing them: the lock already keeps any other worker from taking them over), so the
    keeper never waits for a write of its own claim to commit."""
    with transaction.atomic():
        unlocked = (
            held_under(token).select_for_update(skip_locked=True).values_list("pk", flat=True)
        )
        return Unit.objects.filter(pk__in=list(unlocked)).update(lease_expires_at=lease_expiry())


def still_held(works: list[UnitWork]) -> list[UnitWork]:
    """The open ones of ``works`` (UnitWork) whose unit this worker still holds; the others are
    closed here without a write (their lease was lost: a newer attempt owns them)."""
    open_works = [work for work in works if not work.done]
    if not open_works:
        return []
    held_ids = set(
        Unit.objects.filter(
            pk__in=[work.unit.pk for work in open_works],
            lease_token=open_works[0].unit.lease_token,
            status=UnitStatus.RUNNING,
        ).values_list("pk", flat=True)
    )
    for work in open_works:
        if work.unit.pk not in held_ids:
            work.done = True
    return [work for work in open_works if not work.done]


def retry_unit_after(unit: Unit, token: str, delay_seconds: float, code: str, message: str) -> None:
    """Back to pending after a back-off; the attempt counts."""
    message = storable(message)
    held(unit, token).update(
        status=UnitStatus.PENDING,
        lease_token=None,
        lease_expires_at=None,
        available_after=Now() + timedelta(seconds=delay_seconds),
        error_code=code,
        error_message=message,
    )


def finish_unit(unit: Unit, token: str, status: str, **fields: Any) -> bool:
    """Record a unit's outcome only while this worker still holds its lease (the fence)."""
    if isinstance(fields.get("error_message"), str):
        fields["error_message"] = storable(fields["error_message"])
    return bool(
        held(unit, token).update(
            status=status, lease_token=None, lease_expires_at=None, finished_at=Now(), **fields
        )
    )


def hold_lease(unit: Unit, token: str) -> bool:
    """Lock the unit row for the current transaction if this worker still holds its lease."""
    return held(unit, token).select_for_update().exists()


def storable(message: str) -> str:
    """A message as every database can store it: a translator's words may hold NUL, which
    PostgreSQL's text refuses (the unit's outcome would be lost with it)."""
    return message.replace("\x00", "")
