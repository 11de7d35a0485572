"""Every ``--json`` output is one JSON document on stdout; sentences for people go to stderr."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import run_exit_code, run_waiting
from wagtail_bulk_translate.errors import TranslatorError
from wagtail_bulk_translate.models import Run, RunStatus

pytestmark = pytest.mark.django_db


def start_and_drain(run_command, task_queue, *args):
    run_command("start", *args)
    task_queue.drain()
    return Run.objects.order_by("-pk").first()


@pytest.fixture
def partial_run(three_pages, run_command, task_queue, recording_translator, conf):
    """A finished run of the three pages into fr whose article failed (then can succeed)."""
    # One object per claim and request: a failing request fails its object only.
    conf(UNITS_PER_CLAIM=1, MAX_UNITS_PER_CLAIM=1)

    def refuse(text):
        raise TranslatorError("The translator refused this text.")

    recording_translator.overrides["A quiet story"] = refuse
    run = start_and_drain(
        run_command, task_queue, "--subtree", str(three_pages.home.pk), "--locales", "fr"
    )
    recording_translator.overrides.clear()
    assert run.status == RunStatus.PARTIAL
    return run


def test_start_json_without_wait_prints_the_new_run(three_pages, run_command):
    out, err = run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr", "--json")

    summary = json.loads(out)
    assert summary["id"] == Run.objects.get().pk
    assert summary["status"] == "pending"
    assert "Started run" in err


def test_start_wait_json(three_pages, waiting):
    waiting(drain=True)

    code, out, err = run_waiting(
        "start", "--page", str(three_pages.home.pk), "--locales", "fr", "--json"
    )

    assert code == 0
    assert json.loads(out)["status"] == "succeeded"
    assert "1/1 units" in err  # progress went to stderr


def test_estimate_json(three_pages, run_command):
    out, _err = run_command("start", "--all", "--locales", "fr", "--estimate", "--json")

    assert json.loads(out)["units_total"] > 0


def test_status_and_list_and_units_json(partial_run, run_command):
    status = json.loads(run_command("status", str(partial_run.pk), "--json")[0])
    runs = json.loads(run_command("list", "--json")[0])
    units = json.loads(run_command("units", str(partial_run.pk), "--json")[0])

    assert status["status"] == "partial"
    assert status["content_source"] == "live"
    assert [row["id"] for row in runs] == [partial_run.pk]
    assert {unit["status"] for unit in units} == {"succeeded", "failed"}


@pytest.mark.parametrize("action", ["pause", "cancel"])
def test_controls_json_print_the_run(three_pages, run_command, action):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")
    run = Run.objects.get()
    if action == "pause":
        Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)

    out, err = run_command(action, str(run.pk), "--json")

    assert json.loads(out)["status"] == {"pause": "paused", "cancel": "cancelled"}[action]
    assert err


def test_resume_json(three_pages, run_command):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")
    run = Run.objects.get()
    Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    run_command("pause", str(run.pk))

    out, err = run_command("resume", str(run.pk), "--json")

    assert json.loads(out)["id"] == run.pk
    assert "Resumed" in err


def test_retry_json_and_retry_wait_json(partial_run, run_command, waiting):
    out, err = run_command("retry", str(partial_run.pk), "--json")
    assert json.loads(out)["id"] == partial_run.pk
    assert "Queued 1 failed unit(s)" in err
    waiting(drain=True)

    code, out, err = run_waiting("retry", str(partial_run.pk), "--json")

    assert code == 0
    summary = json.loads(out)  # the "Queued ..." sentence is not on stdout
    assert summary["status"] == "succeeded"
    assert "nothing was queued" in err  # already queued by the first retry


def test_promote_wait_json(three_pages, run_command, task_queue, waiting):
    canary = start_and_drain(
        run_command, task_queue, "--subtree", str(three_pages.home.pk), "--locales", "fr",
        "--canary", "1",
    )  # fmt: skip
    waiting(drain=True)

    code, out, err = run_waiting("promote", str(canary.pk), "--json")

    assert code == 0
    summary = json.loads(out)
    assert summary["id"] != canary.pk
    assert summary["status"] == "succeeded"
    assert f"canary #{canary.pk}" in err


def test_promote_json_without_wait(three_pages, run_command, task_queue):
    canary = start_and_drain(
        run_command, task_queue, "--page", str(three_pages.home.pk), "--locales", "fr",
        "--canary", "1",
    )  # fmt: skip

    out, _err = run_command("promote", str(canary.pk), "--json")

    assert json.loads(out)["id"] == Run.objects.get(promoted_from=canary).pk


def test_revert_json_with_and_without_wait(three_pages, run_command, task_queue, waiting):
    run = start_and_drain(
        run_command, task_queue, "--page", str(three_pages.home.pk), "--locales", "fr"
    )
    waiting(drain=True)

    code, out, err = run_waiting("revert", str(run.pk), "--json")

    assert code == 0
    report = json.loads(out)
    assert report["id"] == run.pk
    assert report["reverted"] == 1
    assert "Reverting" in err


def test_revert_json_without_wait(three_pages, run_command, task_queue):
    run = start_and_drain(
        run_command, task_queue, "--page", str(three_pages.home.pk), "--locales", "fr"
    )

    code, out, _err = run_exit_code("revert", str(run.pk), "--json")

    assert code == 0
    assert json.loads(out)["id"] == run.pk


def test_wait_json_on_a_run_that_stays_paused_prints_the_run_and_exits_5(three_pages, waiting):
    def pause_it():
        Run.objects.update(status=RunStatus.PAUSED, error_message="Paused by an editor.")

    waiting(drain=False, on_sleep=pause_it)

    code, out, err = run_waiting(
        "start", "--page", str(three_pages.home.pk), "--locales", "fr", "--json", "--timeout", "0.1"
    )

    assert code == 5
    assert json.loads(out)["status"] == "paused"
    assert "--timeout" in err


def test_wait_json_stopped_with_ctrl_c_prints_the_run_and_exits_130(three_pages, waiting):
    def ctrl_c():
        raise KeyboardInterrupt

    waiting(drain=False, on_sleep=ctrl_c)

    code, out, err = run_waiting(
        "start", "--page", str(three_pages.home.pk), "--locales", "fr", "--json"
    )

    assert code == 130
    assert json.loads(out)["id"] == Run.objects.get().pk
    assert "Stopped waiting" in err


@pytest.mark.parametrize(
    "args",
    [
        ("status", "999", "--json"),
        ("cancel", "999", "--json"),
        ("start", "--setting-models", "demo.SocialLinks", "--locales", "fr", "--json"),
    ],
)
def test_a_refused_request_with_json_prints_one_json_error(three_pages, args):
    code, out, _err = run_exit_code(*args)

    assert code == 2
    document = json.loads(out)
    assert document["exit_code"] == 2
    assert document["error"]


def test_revert_wait_json_on_timeout_prints_the_report_and_exits_5(
    three_pages, run_command, task_queue, waiting
):
    run = start_and_drain(
        run_command, task_queue, "--page", str(three_pages.home.pk), "--locales", "fr"
    )
    waiting(drain=False)  # no worker reverts it

    code, out, err = run_waiting("revert", str(run.pk), "--json", "--timeout", "0.05")

    assert code == 5
    assert json.loads(out)["id"] == run.pk
    assert "still reverting" in err
