"""The arithmetic of a request against the caps: what fits, what is refused and why, what a
reservation holds, and when a paused run has room again."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tests import factories as f
from wagtail_bulk_translate.budgets import enforcement
from wagtail_bulk_translate.errors import BudgetExceededError, ErrorCode
from wagtail_bulk_translate.models import (
    BudgetReservation,
    Run,
    RunOrigin,
    SentOutcome,
    SentText,
    SpentRequest,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def budgets(conf):
    def _budgets(**caps):
        conf(BUDGETS=caps)

    return _budgets


def new_run(origin: str = RunOrigin.ADMIN) -> Run:
    return Run.objects.create(
        source_locale=f.locales()["en"], translator_class="x.Y", origin=origin
    )


def spent(run: Run, characters: int = 0, cost: str = "0", when=None) -> None:
    """A request of ``run`` in the ledger: one text of ``characters``, ``cost`` reported."""
    locale = f.locales()["fr"]
    when = when or timezone.now()
    request = uuid.uuid4()
    SentText.objects.create(
        run=run, locale=locale, request=request, text_hash="h", sent_characters=characters,
        outcome=SentOutcome.TRANSLATED, created_at=when,
    )  # fmt: skip
    if cost != "0":
        SpentRequest.objects.create(
            run=run, locale=locale, request=request, cost=Decimal(cost), created_at=when
        )


def reserve(run: Run, sizes: list[int], cost: str | None = None) -> int:
    token = uuid.uuid4().hex
    return enforcement.reserve(run, token, sizes, lambda: None if cost is None else Decimal(cost))


def test_without_caps_everything_fits_and_nothing_is_reserved(budgets):
    budgets()
    assert reserve(new_run(), [10_000, 20_000]) == 2
    assert not BudgetReservation.objects.exists()


def test_a_request_is_cut_to_the_texts_that_fit_the_room_left(budgets):
    budgets(daily={"characters": 100})
    run = new_run()
    spent(run, 60)
    assert reserve(run, [30, 20, 5]) == 1  # 60 + 30 fits, + 20 would pass 100
    assert BudgetReservation.objects.get().characters == 30


def test_a_request_whose_first_text_does_not_fit_is_refused_with_when_it_resumes(budgets):
    budgets(daily={"characters": 100})
    run = new_run()
    spent(run, 90)
    with pytest.raises(BudgetExceededError) as refused:
        reserve(run, [30, 5])
    err = refused.value
    assert err.code == ErrorCode.BUDGET_EXCEEDED
    assert err.needs["characters"] == 30
    assert err.resumes_at > timezone.now()
    assert "The daily cap (all runs) is reached (90 of 100 characters today)" in err.message
    assert not BudgetReservation.objects.exists()  # nothing held by a refused request


def test_live_reservations_of_others_count_expired_ones_do_not(budgets):
    budgets(run={"characters": 100})
    run = new_run()
    assert reserve(run, [70]) == 1  # held until the ledger has it
    with pytest.raises(BudgetExceededError):
        reserve(run, [40])
    BudgetReservation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert reserve(run, [40]) == 1


def test_a_released_reservation_stops_counting():
    run = new_run()
    token = uuid.uuid4().hex
    BudgetReservation.objects.create(
        token=uuid.UUID(token), run=run, characters=5, expires_at=timezone.now()
    )
    enforcement.release(token)
    assert not BudgetReservation.objects.exists()


def test_yesterdays_spending_does_not_count_against_the_daily_cap(budgets):
    budgets(daily={"characters": 100}, monthly={"characters": 1000})
    run = new_run()
    spent(run, 100, when=timezone.now() - timedelta(days=1, hours=1))
    assert reserve(run, [90]) == 1


def test_an_origins_cap_counts_only_the_runs_of_that_origin(budgets):
    budgets(origins={"automatic": {"daily": {"characters": 100}}})
    editor_run, automatic_run = new_run(), new_run(RunOrigin.AUTOMATIC)
    spent(editor_run, 500)
    assert reserve(automatic_run, [100]) == 1
    with pytest.raises(BudgetExceededError, match="daily cap on automatic runs"):
        reserve(automatic_run, [1])
    assert reserve(editor_run, [1000]) == 1  # no cap on editors' runs


def test_a_per_run_cap_counts_the_runs_own_spending_and_never_resumes_by_itself(budgets):
    budgets(run={"characters": 50})
    run, other = new_run(), new_run()
    spent(other, 1000)
    spent(run, 50)
    with pytest.raises(BudgetExceededError) as refused:
        reserve(run, [1])
    assert refused.value.resumes_at is None
    assert "once the cap is raised" in refused.value.message


def test_a_cost_cap_takes_the_translators_estimate_pro_rata_characters(budgets):
    budgets(monthly={"cost": 1.0})
    run = new_run()
    spent(run, 10, cost="0.70")
    # The request is estimated at 0.40 for 400 characters: 0.10 per 100.
    assert reserve(run, [100, 100, 100, 100], cost="0.40") == 3
    assert BudgetReservation.objects.get().cost == Decimal("0.30")


def test_a_cost_cap_that_is_used_up_refuses_even_a_free_estimate(budgets, settings):
    budgets(daily={"cost": 0.5})
    run = new_run()
    spent(run, 10, cost="0.50")
    with pytest.raises(BudgetExceededError, match=r"0.50 of 0.50 EUR today"):
        reserve(run, [10])


def test_a_cost_cap_does_not_ask_for_an_estimate_when_none_applies(budgets):
    budgets(daily={"characters": 100})
    run = new_run()
    asked = []
    enforcement.reserve(run, uuid.uuid4().hex, [10], lambda: asked.append(1))
    assert asked == []


def test_room_again_means_room_for_what_the_refused_request_needed(budgets):
    budgets(daily={"characters": 100})
    run = new_run()
    spent(run, 80)
    run.budget_needs = {"characters": 30, "cost": "0"}
    assert not enforcement.has_room(run)
    budgets(daily={"characters": 110})  # raised in the settings
    assert enforcement.has_room(run)


def test_a_text_longer_than_the_whole_cap_waits_for_the_cap_to_be_raised(budgets):
    budgets(daily={"characters": 100})
    with pytest.raises(BudgetExceededError) as refused:
        reserve(new_run(), [150])
    assert refused.value.resumes_at is None  # a new day would not let it through
    assert "the next text alone has 150 characters" in refused.value.message


def test_a_profile_cap_counts_only_what_its_profile_was_sent(budgets):
    budgets(profiles={"gpt": {"daily": {"characters": 100}}})
    run = new_run()
    locale = f.locales()["fr"]
    for profile, characters in (("gpt", 80), ("deepl", 5_000)):
        SentText.objects.create(
            run=run, locale=locale, request=uuid.uuid4(), text_hash="h", profile=profile,
            sent_characters=characters, outcome=SentOutcome.TRANSLATED,
        )  # fmt: skip

    assert enforcement.reserve(run, uuid.uuid4().hex, [10_000], lambda: None, "deepl") == 1
    with pytest.raises(BudgetExceededError) as refused:
        enforcement.reserve(run, uuid.uuid4().hex, [30], lambda: None, "gpt")
    assert (
        "the daily cap on the translator profile 'gpt' is reached (80 of 100"
        in str(refused.value).lower()
    )
    assert enforcement.reserve(run, uuid.uuid4().hex, [20], lambda: None, "gpt") == 1
    assert BudgetReservation.objects.filter(profile="gpt").count() == 1
