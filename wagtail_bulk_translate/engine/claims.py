"""Claiming units: pending → running atomically, with a lease and a fencing token.

A claim takes the lowest positions first (tree order, parents before children) and whole
objects (every claimable locale of an object), so the work shared by the locales of one object
is done once. Units whose worker died (lease expired) are claimable again until their attempts
run out; past ``MAX_ATTEMPTS`` they fail with a clear reason, so no unit stays running forever.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Now

from ..conf import get_settings
from ..errors import ErrorCode
from ..models import Run, RunStatus, Unit, UnitStatus

LEASE_EXPIRED_MESSAGE = (
    "The worker translating this unit stopped responding on every attempt. "
    "Retry it; if it keeps failing, the object may be too large to translate in one go."
)


def claimable_filter() -> Q:
    ready = Q(available_after__isnull=True) | Q(available_after__lte=Now())
    return (Q(status=UnitStatus.PENDING) & ready) | Q(
        status=UnitStatus.RUNNING, lease_expires_at__lt=Now()
    )


def fail_exhausted_leases(run_id: int) -> int:
    return Unit.objects.filter(
        run_id=run_id,
        status=UnitStatus.RUNNING,
        lease_expires_at__lt=Now(),
        attempts__gte=get_settings().MAX_ATTEMPTS,
    ).update(
        status=UnitStatus.FAILED,
        error_code=ErrorCode.LEASE_EXPIRED,
        error_message=LEASE_EXPIRED_MESSAGE,
        lease_token=None,
        finished_at=Now(),
    )


def claim_units(run_id: int, limit: int) -> tuple[str, list[Unit]]:
    """Claim up to ``limit`` units (rounded up to whole objects) of a running run."""
    token = str(uuid.uuid4())
    lease = timedelta(seconds=get_settings().LEASE_SECONDS)
    with transaction.atomic():
        if not Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists():
            return token, []
        fail_exhausted_leases(run_id)
        candidates = Unit.objects.filter(run_id=run_id).filter(claimable_filter())
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
        Unit.objects.filter(pk__in=ids).filter(claimable_filter()).update(
            status=UnitStatus.RUNNING,
            attempts=F("attempts") + 1,
            lease_token=token,
            lease_expires_at=Now() + lease,
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


def release_unit(unit: Unit, token: str, delay_seconds: float) -> None:
    """Give a claimed unit back without counting the attempt (e.g. its parent isn't written)."""
    Unit.objects.filter(pk=unit.pk, lease_token=token, status=UnitStatus.RUNNING).update(
        status=UnitStatus.PENDING,
        attempts=F("attempts") - 1,
        lease_token=None,
        lease_expires_at=None,
        available_after=Now() + timedelta(seconds=delay_seconds),
    )


def release_claim(token: str) -> int:
    """Give back every unit still held under ``token`` (the run paused or stopped mid-claim)."""
    return Unit.objects.filter(lease_token=token, status=UnitStatus.RUNNING).update(
        status=UnitStatus.PENDING,
        attempts=F("attempts") - 1,
        lease_token=None,
        lease_expires_at=None,
        available_after=None,
    )


def renew_leases(token: str) -> int:
    """Extend the lease of every unit held under ``token`` (long claims stay owned)."""
    lease = timedelta(seconds=get_settings().LEASE_SECONDS)
    return Unit.objects.filter(lease_token=token, status=UnitStatus.RUNNING).update(
        lease_expires_at=Now() + lease
    )


def backoff_seconds(attempts: int) -> float:
    conf = get_settings()
    return min(
        conf.RETRY_BACKOFF_SECONDS * 2 ** max(attempts - 1, 0), conf.RETRY_BACKOFF_MAX_SECONDS
    )


def retry_later(unit: Unit, token: str, code: str, message: str) -> str:
    """A transient failure: back to pending after a back-off, or failed once attempts run out.

    Returns the unit's new status.
    """
    if unit.attempts >= get_settings().MAX_ATTEMPTS:
        finish_unit(
            unit,
            token,
            UnitStatus.FAILED,
            error_code=code,
            error_message=f"{message} (gave up after {unit.attempts} attempts)",
        )
        return UnitStatus.FAILED
    delay = timedelta(seconds=backoff_seconds(unit.attempts))
    Unit.objects.filter(pk=unit.pk, lease_token=token, status=UnitStatus.RUNNING).update(
        status=UnitStatus.PENDING,
        lease_token=None,
        lease_expires_at=None,
        available_after=Now() + delay,
        error_code=code,
        error_message=f"{message} (attempt {unit.attempts}, retrying)",
    )
    return UnitStatus.PENDING


def finish_unit(unit: Unit, token: str, status: str, **fields) -> bool:
    """Record a unit's outcome only while this worker still holds its lease (the fence)."""
    return bool(
        Unit.objects.filter(pk=unit.pk, lease_token=token, status=UnitStatus.RUNNING).update(
            status=status, lease_token=None, lease_expires_at=None, finished_at=Now(), **fields
        )
    )


def hold_lease(unit: Unit, token: str) -> bool:
    """Lock the unit row for the current transaction if this worker still holds its lease."""
    return (
        Unit.objects.select_for_update()
        .filter(pk=unit.pk, lease_token=token, status=UnitStatus.RUNNING)
        .exists()
    )
