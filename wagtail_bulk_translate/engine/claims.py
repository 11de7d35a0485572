"""Claiming units: pending → running atomically, with a lease and a fencing token.

A claim takes the lowest positions first (tree order, parents before children) and whole
objects (every claimable locale of an object), so the work shared by the locales of one object
is done once. Units whose worker died (lease expired) are claimable again until their attempts
run out; past ``MAX_ATTEMPTS`` they fail with a clear reason, so no unit stays running forever.

Every later change to a claimed unit is fenced by the token: it only applies while the unit is
still running under that token, so a worker that lost its lease can never overwrite a newer
attempt.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Now

from ..conf import get_settings
from ..models import Run, RunStatus, Unit, UnitQuerySet, UnitStatus


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


def claim_units(run_id: int, limit: int) -> tuple[str, list[Unit]]:
    """Claim up to ``limit`` units (rounded up to whole objects) of a running run."""
    token = str(uuid.uuid4())
    with transaction.atomic():
        if not Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists():
            return token, []
        Unit.objects.filter(run_id=run_id).fail_exhausted_leases(get_settings().MAX_ATTEMPTS)
        candidates = Unit.objects.filter(run_id=run_id).claimable()
        first = list(
            candidates.order_by("position", "target_locale_id")
            .select_for_update(skip_locked=True)
            .values_list("pk", "position")[:limit]
        )
        if not first:
            return token, []
        positions = {position for _pk, position in first}
        rest = (
            candidates.filter(position__in=positions)
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)
        )
        ids = {pk for pk, _position in first} | set(rest)
        Unit.objects.filter(pk__in=ids).claimable().update(
            status=UnitStatus.RUNNING,
            attempts=F("attempts") + 1,
            lease_token=token,
            lease_expires_at=lease_expiry(),
            available_after=None,
            started_at=Now(),
        )
        Run.objects.filter(pk=run_id).update(heartbeat_at=Now())
        units = list(
            Unit.objects.filter(lease_token=token)
            .select_related("target_locale", "content_type")
            .order_by("position", "target_locale_id")
        )
    return token, units


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


def retry_unit_after(unit: Unit, token: str, delay_seconds: float, code: str, message: str) -> None:
    """Back to pending after a back-off; the attempt counts."""
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
    return bool(
        held(unit, token).update(
            status=status, lease_token=None, lease_expires_at=None, finished_at=Now(), **fields
        )
    )


def hold_lease(unit: Unit, token: str) -> bool:
    """Lock the unit row for the current transaction if this worker still holds its lease."""
    return held(unit, token).select_for_update().exists()
