"""A unit that kills its worker is isolated; the units that shared its claim never pay for it.

A dead worker is simulated by claiming units and expiring their lease instead of finishing
them: the next claim finds the lease expired, as it would after a SIGKILL.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.lookups import counts
from wagtail_bulk_translate.engine import claims
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import Run, Unit, UnitStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(site, begin, task_queue, conf) -> Run:
    conf(MAX_ATTEMPTS=3, UNITS_PER_CLAIM=10)
    run = begin(scope=site.scope_with_category)  # 5 objects x 2 locales
    task_queue.run_first("coordinate_run")
    task_queue.clear()
    return run


def die_holding(token: str) -> None:
    """The worker holding ``token`` is killed: its lease runs out, nobody finishes its units."""
    Unit.objects.filter(lease_token=token).update(
        lease_expires_at=timezone.now() - timedelta(hours=1)
    )


def succeed(token: str) -> None:
    Unit.objects.filter(lease_token=token).update(
        status=UnitStatus.SUCCEEDED, lease_token=None, lease_expires_at=None
    )


def test_claims_after_a_dead_worker_halve_down_to_one(run):
    sizes = []
    for _ in range(4):
        token, units = claims.claim_units(run.pk, 10)
        sizes.append(len(units))
        die_holding(token)

    assert sizes == [10, 5, 2, 1]


def test_a_lone_crash_counts_an_attempt_a_shared_one_does_not(run):
    token, units = claims.claim_units(run.pk, 10)
    die_holding(token)
    token, units = claims.claim_units(run.pk, 10)
    assert len(units) == 5
    succeed(token)

    returned = Unit.objects.filter(run=run, status=UnitStatus.PENDING)
    assert {u.attempts for u in returned} == {0}
    token, (alone,) = claims.claim_units(run.pk, 1)
    die_holding(token)
    claims.recover_expired_leases(Unit.objects.filter(run=run))
    alone.refresh_from_db()
    assert (alone.status, alone.attempts, alone.claim_limit) == (UnitStatus.PENDING, 1, 1)


def test_only_the_unit_that_kills_its_worker_fails(run, site):
    poison = Unit.objects.get(
        run=run, object_key=site.stories[1].translation_key, target_locale__language_code="fr"
    )
    while True:
        token, units = claims.claim_units(run.pk, 10)
        if not units:
            break
        if poison.pk in {u.pk for u in units}:
            die_holding(token)
        else:
            succeed(token)

    poison.refresh_from_db()
    assert poison.status == UnitStatus.FAILED
    assert poison.error_code == ErrorCode.LEASE_EXPIRED
    assert "died every time it was processed alone" in poison.error_message
    assert counts(run) == {UnitStatus.SUCCEEDED: 9, UnitStatus.FAILED: 1}
