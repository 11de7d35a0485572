"""``bulk_translate budgets list|set|remove``, in text and with --json; bad input refused."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import parse_error
from tests.lookups import run_until_paused
from wagtail_bulk_translate.models import BudgetCap, RunStatus

pytestmark = pytest.mark.django_db


def test_list_shows_the_default_cap_and_where_it_is_set(run_command, conf):
    conf(BUDGETS={"origins": {"automatic": {"daily": {"characters": 100_000}}}})
    out, _err = run_command("budgets", "list")
    assert "the daily cap on automatic runs: 100,000 of 100,000 characters left today" in out
    assert "(set in the settings, rolls over" in out


def test_set_replaces_the_settings_cap_and_json_is_the_whole_stdout(run_command, conf):
    conf(BUDGETS={"daily": {"characters": 100_000}})
    out, err = run_command("budgets", "set", "daily", "--characters", "4000", "--json")
    assert "Set the daily cap (all runs)" in err
    (cap,) = json.loads(out)
    assert (cap["cap"], cap["characters"], cap["set_in"]) == ("daily", 4000, "admin")

    run_command("budgets", "remove", "daily")
    assert not BudgetCap.objects.exists()
    (cap,) = json.loads(run_command("budgets", "list", "--json")[0])
    assert (cap["characters"], cap["set_in"]) == (100_000, "settings")


def test_no_cap_lifts_the_settings_cap(run_command, conf):
    conf(BUDGETS={"origins": {"automatic": {"daily": {"characters": 100_000}}}})
    out, _err = run_command("budgets", "set", "daily", "--origin", "automatic", "--no-cap")
    assert "Lifted the daily cap on automatic runs." in out
    assert json.loads(run_command("budgets", "list", "--json")[0]) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["set", "daily"], "Give --characters, --cost (or both), or --no-cap"),
        (["set", "daily", "--no-cap", "--cost", "3"], "--no-cap lifts the cap"),
        (["set"], "set: name the period (run, daily, monthly)"),
        (["remove"], "remove: name the period"),
    ],
)
def test_incomplete_requests_are_refused_and_change_nothing(bad_arguments, args, message):
    assert message in bad_arguments("budgets", *args)
    assert not BudgetCap.objects.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["set", "weekly", "--characters", "5"], "invalid choice: 'weekly'"),
        (["set", "daily", "--characters", "-5"], "--characters is a whole number from 0 to"),
        (["set", "daily", "--characters", "9" * 20], "--characters is a whole number from 0 to"),
        (["set", "daily", "--cost", "lots"], "--cost is an amount such as 12.50, got 'lots'"),
        (["set", "daily", "--cost", "NaN"], "--cost must be between 0 and"),
        (["set", "daily", "--cost", "-1"], "--cost must be between 0 and"),
        (["set", "daily", "--cost", "0.001"], "'0.001' would be rounded to 0.00"),
        (["set", "daily", "--origin", "robot", "--characters", "5"], "invalid choice: 'robot'"),
    ],
)
def test_bad_values_are_refused_by_the_parser(capsys, args, message):
    assert message in parse_error(capsys, "budgets", *args)
    assert not BudgetCap.objects.exists()


def test_raising_a_cap_resumes_the_run_it_paused(run_command, site, begin, task_queue, conf):
    conf(UNITS_PER_CLAIM=10, RETRY_BACKOFF_SECONDS=0)
    run_command("budgets", "set", "run", "--characters", "12")
    run = run_until_paused(task_queue, begin(locales=("fr",)))

    run_command("budgets", "set", "run", "--characters", "100000")
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def test_a_cost_cap_for_a_translator_that_reports_no_money_warns(run_command):
    out, _err = run_command("budgets", "set", "monthly", "--cost", "20")
    assert "Warning: PseudoTranslator bills characters and reports no money" in out
