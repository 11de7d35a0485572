"""Budgets in the engine: a run reaching a cap pauses with budget_exceeded, loses nothing, and
goes on when the cap is raised or its period rolls over; every text is billed once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Count, Sum

from tests.lookups import counts, run_until_paused
from wagtail_bulk_translate import api
from wagtail_bulk_translate.engine import janitor
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import (
    BudgetReservation,
    Run,
    RunStatus,
    SentText,
    Unit,
    UnitStatus,
)

pytestmark = pytest.mark.django_db

FR = ("fr",)


@pytest.fixture(autouse=True)
def one_claim(conf):
    conf(UNITS_PER_CLAIM=10, RETRY_BACKOFF_SECONDS=0)


@pytest.fixture
def sweep(django_capture_on_commit_callbacks):
    """A janitor sweep, with the tasks it queues on commit queued."""

    def _sweep() -> janitor.SweepReport:
        with django_capture_on_commit_callbacks(execute=True):
            return janitor.sweep()

    return _sweep


def sent_characters(run: Run) -> int:
    return SentText.objects.filter(run=run).aggregate(n=Sum("sent_characters"))["n"] or 0


def sent_today(run: Run) -> int:
    today = SentText.objects.filter(run=run, created_at__gte=run.created_at)
    return today.aggregate(n=Sum("sent_characters"))["n"] or 0


def assert_nothing_lost(run: Run) -> None:
    assert not Unit.objects.filter(run=run, status=UnitStatus.FAILED).exists()
    for unit in Unit.objects.filter(run=run).exclude(status=UnitStatus.SUCCEEDED):
        assert unit.status == UnitStatus.PENDING
        assert unit.attempts == 0
        assert unit.lease_token is None


def assert_each_text_billed_once(run: Run) -> None:
    repeated = (
        SentText.objects.filter(run=run)
        .values("locale", "text_hash")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
    )
    assert list(repeated) == []


def test_a_run_reaching_its_cap_pauses_and_goes_on_once_the_cap_is_raised(
    site, begin, task_queue, recording_translator, conf, sweep
):
    conf(BUDGETS={"run": {"characters": 12}})
    run = run_until_paused(task_queue, begin(locales=FR))

    assert run.error_code == ErrorCode.BUDGET_EXCEEDED
    assert "The per-run cap is reached" in run.error_message
    assert "once the cap is raised" in run.error_message
    assert 0 < sent_characters(run) <= 12
    assert run.budget_needs["characters"] > 12 - sent_characters(run)
    assert_nothing_lost(run)
    assert not BudgetReservation.objects.exists()
    # A per-run cap does not roll over: no wake-up, and the janitor leaves it paused.
    assert "retry_after_budget" not in task_queue.names()
    calls = len(recording_translator.calls)
    task_queue.drain()
    assert sweep().budget_resumes == 0
    assert len(recording_translator.calls) == calls

    conf(BUDGETS={"run": {"characters": 10_000}})
    assert sweep().budget_resumes == 1
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert run.error_code == ""
    assert counts(run) == {UnitStatus.SUCCEEDED: 4}
    assert_each_text_billed_once(run)


def test_a_daily_cap_goes_on_by_itself_when_the_day_rolls_over(
    site, begin, task_queue, recording_translator, conf, sweep
):
    conf(BUDGETS={"daily": {"characters": 20}})  # the longest text has 19
    run = run_until_paused(task_queue, begin(locales=FR))
    assert "It goes on by itself at" in run.error_message
    assert task_queue.names().count("retry_after_budget") == 1

    # Still today: the wake-up finds no room and leaves the run paused.
    assert task_queue.run_first("retry_after_budget") == {"resumed": False}
    assert Run.objects.get(pk=run.pk).status == RunStatus.PAUSED

    # Each new day, what was spent the day before no longer counts: a day's 20 characters.
    days = 0
    while not run.is_finished and days < 30:
        SentText.objects.update(created_at=run.created_at - timedelta(days=1))
        assert sweep().budget_resumes == 1
        task_queue.drain()
        run.refresh_from_db()
        days += 1
        assert 0 < sent_today(run) <= 20
    assert days > 1
    assert run.status == RunStatus.SUCCEEDED
    assert counts(run) == {UnitStatus.SUCCEEDED: 4}
    assert_each_text_billed_once(run)


def test_an_editor_resuming_a_run_still_over_its_cap_sees_it_pause_again(
    site, begin, task_queue, recording_translator, conf, django_capture_on_commit_callbacks
):
    conf(BUDGETS={"run": {"characters": 0}})
    run = run_until_paused(task_queue, begin(locales=FR))
    assert recording_translator.calls == []
    with django_capture_on_commit_callbacks(execute=True):
        assert api.resume_run(run.pk)
    run = run_until_paused(task_queue, run)
    assert run.error_code == ErrorCode.BUDGET_EXCEEDED
    assert recording_translator.calls == []
    assert_nothing_lost(run)


def test_runs_of_another_origin_are_not_held_by_an_origins_cap(
    site, begin, task_queue, recording_translator, conf
):
    conf(BUDGETS={"origins": {"automatic": {"daily": {"characters": 0}}}})
    run = begin(locales=FR)
    task_queue.drain()
    assert Run.objects.get(pk=run.pk).status == RunStatus.SUCCEEDED
