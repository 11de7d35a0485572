"""Which caps hold a run: the global ones and those of its origin; the settings' rules."""

from __future__ import annotations

from decimal import Decimal

import pytest

from wagtail_bulk_translate.budgets.caps import ADMIN, Cap, caps_for, configured_caps
from wagtail_bulk_translate.conf import setting_problems
from wagtail_bulk_translate.conf.settings import RUN_ORIGINS
from wagtail_bulk_translate.models import BudgetCap, RunOrigin


@pytest.mark.django_db
def test_by_default_editors_runs_have_no_cap_and_automatic_ones_a_daily_one(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {}
    assert caps_for(RunOrigin.ADMIN) == []
    assert caps_for(RunOrigin.COMMAND) == []
    assert caps_for(RunOrigin.AUTOMATIC) == [Cap("daily", "automatic", characters=100_000)]


@pytest.mark.django_db
def test_global_caps_and_the_origins_own_all_apply(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "BUDGETS": {
            "run": {"characters": 5000},
            "monthly": {"cost": 12.5},
            "origins": {"admin": {"daily": {"characters": 1000, "cost": None}}},
        }
    }
    assert caps_for(RunOrigin.ADMIN) == [
        Cap("run", None, characters=5000),
        Cap("monthly", None, cost=Decimal("12.5")),
        Cap("daily", "admin", characters=1000),
    ]
    assert caps_for(RunOrigin.AUTOMATIC) == caps_for(RunOrigin.ADMIN)[:2]


@pytest.mark.django_db
def test_a_cap_set_in_the_admin_replaces_the_settings_cap_of_its_period_and_origin(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"BUDGETS": {"daily": {"characters": 1000}}}
    BudgetCap.objects.create(period="daily", origin="", characters=50)
    BudgetCap.objects.create(period="monthly", origin="automatic", cost=Decimal("3.50"))

    assert caps_for(RunOrigin.AUTOMATIC) == [
        Cap("daily", None, characters=50, set_in=ADMIN),
        Cap("monthly", "automatic", cost=Decimal("3.50"), set_in=ADMIN),
    ]
    assert caps_for(RunOrigin.ADMIN) == [Cap("daily", None, characters=50, set_in=ADMIN)]


@pytest.mark.django_db
def test_a_cap_set_in_the_admin_without_limits_lifts_the_settings_cap(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {}  # the default: 100,000 characters a day for automatic runs
    BudgetCap.objects.create(period="daily", origin="automatic")

    assert caps_for(RunOrigin.AUTOMATIC) == []
    assert configured_caps(with_lifted=True) == [Cap("daily", "automatic", set_in=ADMIN)]


def test_caps_describe_themselves():
    assert Cap("run", None, 1).describe() == "the per-run cap"
    assert Cap("daily", None, 1).describe() == "the daily cap (all runs)"
    assert Cap("daily", "automatic", 1).describe() == "the daily cap on automatic runs"
    assert Cap("monthly", "admin", 1).key == "origins.admin.monthly"


def test_bad_budget_values_are_reported_with_their_path(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "BUDGETS": {
            "daily": {"characters": -1},
            "weekly": {"characters": 10},
            "origins": {"robot": {"run": {"cost": "5"}}},
        }
    }
    messages = [problem.message for problem in setting_problems()]
    assert any("['BUDGETS']['daily']['characters'] is -1" in m for m in messages)
    assert any("unknown key 'weekly'" in m for m in messages)
    assert any("['BUDGETS']['origins'] has the key 'robot'" in m for m in messages)
    assert any("['BUDGETS']['origins']['robot']['run']['cost'] is '5'" in m for m in messages)


def test_the_settings_know_every_run_origin():
    assert set(RUN_ORIGINS) == set(RunOrigin.values)
