"""The preflight says what is left of each budget a run started there would be held by, and
warns when its estimate does not fit; a run's status says the same, and why it is paused."""

from __future__ import annotations

import uuid

import pytest

from tests import factories
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.management.reporting import format_preflight
from wagtail_bulk_translate.models import (
    Run,
    RunOrigin,
    RunStatus,
    SentOutcome,
    SentText,
)
from wagtail_bulk_translate.runs.preflight import preflight
from wagtail_bulk_translate.runs.summary import run_summary

pytestmark = pytest.mark.django_db


@pytest.fixture
def tree():
    home = factories.home_page("Home")
    factories.article(factories.index_page(home, "News"), "A long enough title", summary="")
    return {"pages": [{"id": home.pk, "descendants": True}]}


def spent_today(characters: int, origin: str = RunOrigin.ADMIN) -> Run:
    run = Run.objects.create(
        source_locale=factories.locales()["en"], translator_class="x.Y", origin=origin
    )
    SentText.objects.create(
        run=run,
        locale=factories.locales()["fr"],
        request=uuid.uuid4(),
        text_hash="h",
        sent_characters=characters,
        outcome=SentOutcome.TRANSLATED,
    )
    return run


def test_the_preflight_shows_what_is_left_and_warns_when_the_estimate_exceeds_it(tree, conf):
    conf(BUDGETS={"daily": {"characters": 1000}, "run": {"characters": 5}})
    spent_today(990)
    result = preflight(tree, "en", ["fr"])
    assert [b.characters_left for b in result.budgets] == [5, 10]
    data = result.as_dict()["budgets"]
    assert [(b["cap"], b["characters_left"]) for b in data] == [("run", 5), ("daily", 10)]
    assert data[1]["resets_at"] is not None and data[0]["resets_at"] is None
    warnings = [w for w in result.warnings if "what is left of" in w]
    assert len(warnings) == 2
    assert "the daily cap (all runs) (10 of 1,000 characters left today)" in warnings[1]
    text = format_preflight(result)
    assert "Budget: the per-run cap: 5 of 5 characters left for this run" in text


def test_the_preflight_of_a_command_line_run_counts_the_command_lines_caps(tree, conf):
    conf(BUDGETS={"origins": {"command": {"monthly": {"characters": 10_000}}}})
    assert preflight(tree, "en", ["fr"]).budgets == []
    result = preflight(tree, "en", ["fr"], origin=RunOrigin.COMMAND)
    assert [b.cap.key for b in result.budgets] == ["origins.command.monthly"]
    assert not [w for w in result.warnings if "what is left of" in w]


def test_no_cap_no_budget_in_the_status(tree, conf):
    conf(BUDGETS={})
    assert run_summary(spent_today(10))["budget"] is None


def test_a_run_paused_by_a_daily_cap_says_when_it_goes_on(conf):
    conf(BUDGETS={"daily": {"characters": 100}})
    run = spent_today(100)
    Run.objects.filter(pk=run.pk).update(
        status=RunStatus.PAUSED,
        error_code=ErrorCode.BUDGET_EXCEEDED,
        budget_needs={"characters": 10, "cost": "0"},
    )
    budget = run_summary(run)["budget"]
    assert budget["paused_by_budget"] is True
    assert budget["resumes_at"] == budget["caps"][0]["resets_at"] is not None
    assert budget["caps"][0]["characters_left"] == 0
