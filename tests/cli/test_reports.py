"""``list``, ``units``, progress lines, next steps and the no-worker hint."""

from __future__ import annotations

import datetime
import json
import types

import pytest
from django.utils import timezone
from wagtail.models import Site

from demo.models import SocialLinks
from tests.cli.conftest import run_waiting
from wagtail_bulk_translate.errors import TranslatorError
from wagtail_bulk_translate.management.cli import waiting as waiting_module
from wagtail_bulk_translate.models import Run, RunStatus, UnitStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def partial_run(three_pages, run_command, task_queue, recording_translator, conf):
    conf(UNITS_PER_CLAIM=1, MAX_UNITS_PER_CLAIM=1)

    def refuse(text):
        raise TranslatorError("The translator refused this text.")

    recording_translator.overrides["A quiet story"] = refuse
    run_command("start", "--subtree", str(three_pages.home.pk), "--locales", "fr")
    task_queue.drain()
    run = Run.objects.get()
    assert run.status == RunStatus.PARTIAL
    return run


def test_list_shows_recent_runs_one_line_each(three_pages, run_command, task_queue):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")
    run_command("start", "--page", str(three_pages.news.pk), "--locales", "de", "--canary", "1")
    first, second = Run.objects.order_by("pk")

    out, _err = run_command("list")

    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"#{second.pk}")
    assert "canary" in lines[0] and "en → de" in lines[0]
    assert lines[1].startswith(f"#{first.pk}") and "pending" in lines[1]
    assert json.loads(run_command("list", "--limit", "1", "--json")[0])[0]["id"] == second.pk


def test_list_without_runs_says_how_to_start_one(run_command):
    assert "bulk_translate start" in run_command("list")[0]


def test_units_show_what_failed_why_and_the_targets_edit_url(partial_run, run_command):
    out, _err = run_command("units", str(partial_run.pk))
    failed = json.loads(
        run_command("units", str(partial_run.pk), "--status", "failed", "--json")[0]
    )
    succeeded = json.loads(
        run_command("units", str(partial_run.pk), "--status", "succeeded", "--json")[0]
    )

    assert len(out.splitlines()) == 3
    assert [unit["object"] for unit in failed] == ["A quiet story"]
    assert failed[0]["error_code"] == "translator_error"
    assert "refused this text" in failed[0]["error_message"]
    assert failed[0]["edit_url"] is None
    assert {unit["model"] for unit in succeeded} == {"demo.HomePage", "demo.ArticleIndexPage"}
    for unit in succeeded:
        assert unit["edit_url"] == f"/admin/pages/{unit['target_object_id']}/edit/"
        assert unit["edit_url"] in out


def test_units_filter_by_locale_and_model(partial_run, run_command, bad_arguments):
    rows = json.loads(
        run_command(
            "units", str(partial_run.pk), "--locale", "FR", "--model", "demo.HomePage", "--json"
        )[0]
    )

    assert [row["model"] for row in rows] == ["demo.HomePage"]
    assert "choose one of fr" in bad_arguments("units", str(partial_run.pk), "--locale", "de")
    assert "demo.ArticlePage" in bad_arguments(
        "units", str(partial_run.pk), "--model", "demo.Category"
    )


def test_the_summary_names_the_next_step_after_failures(partial_run, run_command):
    out, _err = run_command("status", str(partial_run.pk))

    assert (
        f"1 unit(s) failed — see `manage.py bulk_translate units {partial_run.pk} --status failed`"
        in out
    )
    assert f"bulk_translate retry {partial_run.pk}" in out
    assert "content translated: live (--content live)" in out


def test_the_summary_of_drafts_and_of_a_canary_names_publishing_and_promoting(
    three_pages, run_command, task_queue
):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")
    run_command("start", "--page", str(three_pages.news.pk), "--locales", "de", "--canary", "1")
    task_queue.drain()
    drafts, canary = Run.objects.order_by("pk")

    assert "drafts written" in run_command("status", str(drafts.pk))[0]
    assert f"bulk_translate promote {canary.pk}" in run_command("status", str(canary.pk))[0]


def test_progress_goes_to_stdout_one_line_per_step_with_rate_and_billing(three_pages, waiting):
    waiting(drain=True)

    code, out, err = run_waiting(
        "start", "--subtree", str(three_pages.home.pk), "--locales", "fr,de,es"
    )

    assert code == 0
    progress = [line for line in out.splitlines() if line.startswith("Run #") and "units (" in line]
    assert progress, out
    assert progress[-1].count("9/9 units (100%)") == 1
    assert all("characters sent" in line for line in progress)
    assert len(progress) == len(set(progress))  # no line repeated while nothing changed
    assert "Run #" not in err


def test_progress_writes_a_line_per_ten_percent_not_per_poll():
    class Out:
        lines: list[str] = []

        def write(self, line, ending="\n"):
            self.lines.append(line)

    run = Run(pk=7, status=RunStatus.RUNNING, units_total=1000, enumeration_done=True)
    progress = waiting_module.Progress(Out(), live=False)
    for done in range(0, 1001, 5):
        counts = dict.fromkeys(["pending", "running", "skipped", "failed", "cancelled"], 0)
        counts["succeeded"] = done
        progress.update(run, counts, sent=done * 10)

    assert 11 <= len(Out.lines) <= 12  # 0 %, 10 %, ..., 100 %
    assert "1000/1000 units (100%)" in Out.lines[-1]


def test_status_and_wait_say_when_no_worker_picked_up_the_run(three_pages, run_command, waiting):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")
    run = Run.objects.get()
    Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - datetime.timedelta(minutes=5))

    status, _err = run_command("status")
    sleeps = waiting(drain=False)
    code, out, _err = run_waiting("status", str(run.pk), "--timeout", "0.05")

    hint = "No worker has picked up run"
    start_worker = "start one: manage.py db_worker --queue-name bulk_translate"
    assert hint in status and start_worker in status
    assert code == 5
    assert sleeps
    progress = [line for line in out.splitlines() if line.startswith("Run #")]
    assert progress and all(start_worker in line for line in progress), out


def test_the_progress_line_keeps_saying_no_worker_came_until_one_does(monkeypatch):
    clock = types.SimpleNamespace(now=0.0)
    monkeypatch.setattr(waiting_module, "time", types.SimpleNamespace(monotonic=lambda: clock.now))
    lines: list[str] = []
    out = types.SimpleNamespace(write=lambda line, ending="\n": lines.append(line))
    waited = timezone.now() - datetime.timedelta(minutes=5)
    run = Run(pk=7, status=RunStatus.PENDING, created_at=waited)
    progress = waiting_module.Progress(out, live=False)
    counts = dict.fromkeys(UnitStatus.values, 0)

    for _poll in range(6):
        progress.update(run, counts, sent=0)
        clock.now += waiting_module.PROGRESS_INTERVAL_SECONDS

    assert len(lines) == 6
    assert all("no worker for 300 s — start one: manage.py db_worker" in line for line in lines)


def test_a_paused_run_says_paused_and_why_instead_of_a_rate_and_an_eta(monkeypatch):
    clock = types.SimpleNamespace(now=0.0)
    monkeypatch.setattr(waiting_module, "time", types.SimpleNamespace(monotonic=lambda: clock.now))
    lines: list[str] = []
    out = types.SimpleNamespace(write=lambda line, ending="\n": lines.append(line))
    run = Run(pk=7, status=RunStatus.RUNNING, units_total=100, enumeration_done=True)
    progress = waiting_module.Progress(out, live=True)
    counts = dict.fromkeys(UnitStatus.values, 0)
    for done in (0, 10, 20):
        counts[UnitStatus.SUCCEEDED] = done
        progress.update(run, counts, sent=0)
        clock.now += 10
    assert "ETA" in lines[-1]

    run.status, run.error_message = RunStatus.PAUSED, "The translator's quota is used up."
    for _poll in range(3):
        progress.update(run, counts, sent=0)
        clock.now += 60

    for line in lines[-3:]:
        assert "paused (The translator's quota is used up.)" in line
        assert "ETA" not in line and "units/s" not in line


def test_the_hint_names_the_configured_queue(three_pages, run_command, conf):
    conf(QUEUE="translations")
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")
    Run.objects.update(created_at=timezone.now() - datetime.timedelta(minutes=5))

    assert "--queue-name translations" in run_command("status")[0]


def test_no_hint_while_a_new_run_may_still_be_picked_up(three_pages, run_command):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")

    assert "No worker" not in run_command("status")[0]


def test_start_and_status_name_what_cannot_be_translated(three_pages, run_command):
    row = SocialLinks.objects.create(site=Site.objects.get(is_default_site=True))

    out, _err = run_command(
        "start",
        *("--page", str(three_pages.home.pk)),
        *("--object", f"demo.SocialLinks:{row.pk}", "--locales", "fr"),
    )
    status = json.loads(run_command("status", "--json")[0])

    assert "Left out: demo.SocialLinks cannot be translated" in out
    assert "SITE_LOCALES" in out
    assert [item["model"] for item in status["untranslatable"]] == ["demo.SocialLinks"]
    assert "cannot translate demo.SocialLinks" in run_command("status")[0]


def test_status_counts_objects_with_unpublished_changes(three_pages, run_command, task_queue):
    run_command("start", "--subtree", str(three_pages.home.pk), "--locales", "fr")
    task_queue.drain()
    three_pages.article.title = "A louder story"
    three_pages.article.save_revision()

    out, _err = run_command("status")

    assert "content translated: live (--content live); 1 object(s) have unpublished changes" in out
    assert json.loads(run_command("status", "--json")[0])["unpublished_changes"] == 1
