"""``manage.py bulk_translate``: argument errors, the run it starts, status and --wait exit codes.

Commands run in-process with ``call_command`` (fixtures in conftest.py).
"""

from __future__ import annotations

import json
import time

import pytest
from django.core.management import call_command

from tests import factories as f
from tests.cli.conftest import parser_for_command_line, run_exit_code, run_waiting
from wagtail_bulk_translate.models import Run, RunOrigin, RunStatus, Unit, UnitStatus

pytestmark = pytest.mark.django_db

LONG_TITLE = "x" * 300  # Page.title is max_length=255: the translated page cannot validate


# --- helpers ---------------------------------------------------------------------------------
# run_command, bad_arguments and waiting are fixtures of tests/cli/conftest.py.


def codes(run: Run) -> set[str]:
    return set(run.target_locales.values_list("language_code", flat=True))


# --- bad arguments: exit code 2, a message naming the problem, nothing created ---------------


# (id, arguments after "start", words the error must contain)
BAD_START_ARGUMENTS = [
    ("unknown-target", "--all --locales fr,xx", "Unknown locale 'xx'"),
    ("unknown-source", "--all --locales fr --source zz", "Unknown locale 'zz'"),
    ("source-in-targets", "--all --locales en,fr", "source locale en cannot also be a target"),
    ("given-source-in-targets", "--all --locales fr --source fr", "source locale fr cannot"),
    ("no-targets", "--all --locales ,", "at least one target locale"),
    ("no-scope", "--locales fr", "scope is empty"),
    ("object-without-colon", "--object demo.Category --locales fr", "APP.MODEL:PK"),
    ("object-without-pk", "--object demo.Category: --locales fr", "APP.MODEL:PK"),
    ("object-without-model", "--object :7 --locales fr", "APP.MODEL:PK"),
    ("object-unknown-model", "--object demo.Nope:1 --locales fr", "Unknown model 'demo.Nope'"),
    ("object-missing", "--object demo.Category:999999 --locales fr", "Category 999999 does not"),
    ("object-pk-not-a-number", "--object demo.Category:abc --locales fr", "demo.Category abc"),
    ("object-not-translatable", "--object auth.Group:1 --locales fr", "auth.Group cannot be"),
    ("snippets-not-translatable", "--snippets auth.Group --locales fr", "auth.Group cannot be"),
    ("snippets-unknown-model", "--snippets demo.Category,demo.Nope --locales fr", "'demo.Nope'"),
    ("settings-not-a-setting", "--setting-models demo.Category --locales fr", "not a settings"),
    ("subtree-missing", "--subtree 999999 --locales fr", "Page 999999 does not exist"),
    ("page-missing", "--page 999999 --locales fr", "Page 999999 does not exist"),
    ("exclude-unknown-model", "--all --exclude demo.Nope --locales fr", "'demo.Nope'"),
]


@pytest.mark.parametrize(
    ("args", "expected"),
    [case[1:] for case in BAD_START_ARGUMENTS],
    ids=[case[0] for case in BAD_START_ARGUMENTS],
)
def test_bad_start_arguments_exit_2_with_a_message_and_create_nothing(
    three_pages, bad_arguments, task_queue, args, expected
):
    message = bad_arguments("start", *args.split())

    assert expected in message
    assert not Run.objects.exists()
    assert not Unit.objects.exists()
    assert task_queue.plugin_names() == []


def test_a_page_outside_the_source_locale_is_refused(three_pages, bad_arguments):
    french_home = three_pages.home.copy_for_translation(three_pages.locales["fr"])

    message = bad_arguments("start", "--subtree", str(french_home.pk), "--locales", "de")

    assert "not in the source locale" in message
    assert not Run.objects.exists()


def test_status_of_an_unknown_run_exits_2(three_pages, run_command, bad_arguments):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")
    missing = Run.objects.get().pk + 1000

    message = bad_arguments("status", str(missing))

    assert message.startswith(f"Run {missing} does not exist.")
    assert "bulk_translate list" in message


def test_status_of_run_0_is_refused_not_taken_for_the_latest_run(capsys):
    with pytest.raises(SystemExit) as excinfo:
        parser_for_command_line().parse_args(["status", "0"])

    assert excinfo.value.code == 2
    assert (
        "a run id must be between 1 and 9223372036854775807 (digits 0-9 only), got '0'"
        in capsys.readouterr().err
    )


def test_status_and_list_without_any_run_say_so_alike_and_exit_0(run_command):
    # One rule: a report that finds nothing is an answer (0); 2 is for refused requests.
    status, _err = run_command("status")
    listed, _err = run_command("list")

    assert "There are no runs yet" in status
    assert status == listed
    assert run_exit_code("status")[0] == 0
    assert run_command("status", "--json")[0].strip() == "null"
    assert json.loads(run_command("list", "--json")[0]) == []


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["start", "--all", "--locales", "fr", "--mode", "everything"], "invalid choice"),
        (["start", "--all", "--locales", "fr", "--publish", "now"], "invalid choice"),
        (["start", "--all", "--locales", "fr", "--content", "stale"], "invalid choice"),
        (["start", "--all"], "--locales"),
        (["start", "--subtree", "home", "--locales", "fr"], "a page id must be between 1 and"),
        (["start", "--all", "--locales", "fr", "--canary", "many"], "invalid int value"),
        (["start", "--all", "--locales", "fr", "--canary", "0"], "--canary must be between 1"),
        (["start", "--all", "--locales", "fr", "--canary", "-3"], "--canary must be between 1"),
        (["status", "latest"], "a run id must be between 1 and"),
        (["translate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_argparse_errors_exit_2_naming_the_problem(capsys, argv, expected):
    parser = parser_for_command_line()

    with pytest.raises(SystemExit) as excinfo:
        parser.parse_args(argv)

    assert excinfo.value.code == 2
    assert expected in capsys.readouterr().err


def test_argparse_errors_exit_2_through_call_command_too(three_pages, capsys):
    with pytest.raises(SystemExit) as excinfo:
        call_command("bulk_translate", "start", "--all", "--locales", "fr", "--mode", "nope")

    assert excinfo.value.code == 2
    assert "--mode" in capsys.readouterr().err
    assert not Run.objects.exists()


# --- start -----------------------------------------------------------------------------------


def test_start_all_creates_one_run_over_the_whole_site(three_pages, run_command, task_queue):
    out, _err = run_command("start", "--all", "--locales", "fr,de")

    run = Run.objects.get()
    assert run.source_locale.language_code == "en"
    assert codes(run) == {"fr", "de"}
    assert (run.mode, run.publish_policy, run.content_source) == ("changed", "draft", "live")
    assert run.canary_size is None
    assert run.status == RunStatus.PENDING
    assert run.origin == RunOrigin.COMMAND
    assert {"id": three_pages.home.pk, "descendants": True} in run.scope["pages"]
    assert {"demo.Category", "demo.Testimonial", "demo.FooterText"} <= set(run.scope["snippets"])
    assert set(run.scope["settings"]) == {"demo.SiteBranding", "demo.SocialLinks"}
    assert run.scope["objects"] == []
    assert run.scope["exclude_models"] == []
    assert f"status {run.pk}" in out
    assert task_queue.names().count("coordinate_run") == 1


def test_start_passes_mode_publish_content_and_canary(three_pages, run_command):
    run_command(
        "start",
        *("--subtree", str(three_pages.home.pk), "--locales", "es"),
        *("--mode", "refresh", "--publish", "publish", "--content", "draft", "--canary", "2"),
    )

    run = Run.objects.get()
    assert (run.mode, run.publish_policy, run.content_source) == ("refresh", "publish", "draft")
    assert run.canary_size == 2
    assert codes(run) == {"es"}


def test_locales_all_takes_every_locale_but_the_source(three_pages, run_command):
    three_pages.home.copy_for_translation(three_pages.locales["fr"])  # something in French
    run_command("start", "--all", "--locales", "all")
    run_command("start", "--all", "--source", "fr", "--locales", "ALL")

    english_run, french_run = Run.objects.order_by("pk")
    assert english_run.source_locale.language_code == "en"
    assert codes(english_run) == {"fr", "de", "es"}
    assert french_run.source_locale.language_code == "fr"
    assert codes(french_run) == {"en", "de", "es"}


def test_locale_codes_are_trimmed_deduplicated_and_case_insensitive(three_pages, run_command):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", " FR, de ,fr,")

    assert codes(Run.objects.get()) == {"fr", "de"}


def test_scope_flags_build_the_scope(three_pages, run_command):
    travel = f.category()
    run_command(
        "start",
        *("--subtree", str(three_pages.news.pk), "--page", str(three_pages.home.pk)),
        *("--snippets", "demo.Category,demo.Testimonial", "--snippets", "demo.FooterText"),
        *("--setting-models", "demo.SiteBranding", "--object", f"demo.Category:{travel.pk}"),
        *("--exclude", "demo.ArticlePage", "--locales", "fr"),
    )

    assert Run.objects.get().scope == {
        "pages": [
            {"id": three_pages.news.pk, "descendants": True},
            {"id": three_pages.home.pk, "descendants": False},
        ],
        "snippets": ["demo.Category", "demo.Testimonial", "demo.FooterText"],
        "settings": ["demo.SiteBranding"],
        "objects": [["demo.Category", str(travel.pk)]],
        "exclude_models": ["demo.ArticlePage"],
    }


def test_without_wait_start_returns_at_once_saying_how_to_follow_the_run(three_pages, run_command):
    out, err = run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")

    run = Run.objects.get()
    assert out.startswith(f"Started run #{run.pk}")
    assert f"bulk_translate status {run.pk}" in out
    assert err == ""
    assert run.status == RunStatus.PENDING


# --- status ----------------------------------------------------------------------------------


def test_status_json_after_the_run_was_processed(three_pages, run_command, task_queue):
    run_command("start", "--subtree", str(three_pages.home.pk), "--locales", "fr,de")
    task_queue.drain()

    out, _err = run_command("status", "--json")

    summary = json.loads(out)
    run = Run.objects.get()
    assert summary["id"] == run.pk
    assert summary["status"] == "succeeded"
    assert summary["mode"] == "changed"
    assert summary["canary"] is False
    assert summary["units"] == {
        "pending": 0,
        "running": 0,
        "succeeded": 6,
        "skipped": 0,
        "failed": 0,
        "cancelled": 0,
    }
    assert set(summary["units"]) == set(UnitStatus.values)
    assert summary["units_total"] == 6
    assert summary["units_by_locale"] == {"de": {"succeeded": 3}, "fr": {"succeeded": 3}}
    assert summary["source_locale"] == "en"
    assert summary["target_locales"] == ["de", "fr"]
    assert summary["errors"] == {}


def test_status_json_of_a_canary_before_any_work(three_pages, run_command):
    run_command("start", "--subtree", str(three_pages.home.pk), "--locales", "fr", "--canary", "1")

    summary = json.loads(run_command("status", "--json")[0])

    assert summary["status"] == "pending"
    assert summary["canary"] is True
    assert summary["units"] == dict.fromkeys(UnitStatus.values, 0)


def test_status_shows_the_latest_run_by_default(three_pages, run_command, task_queue):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr")
    run_command(
        "start", "--page", str(three_pages.news.pk), "--locales", "de,es", "--mode", "refresh"
    )
    first, latest = Run.objects.order_by("pk")
    task_queue.drain()

    out, _err = run_command("status")

    assert out.splitlines()[0] == f"Run #{latest.pk} (refresh): succeeded"
    assert "en → de, es" in out
    # news and, for de and es, its untranslated parent (home): parents come along.
    assert "units: 4 (succeeded 4)" in out
    assert f"Run #{first.pk}" not in out


def test_status_with_a_run_id_shows_that_run(three_pages, run_command):
    run_command("start", "--page", str(three_pages.home.pk), "--locales", "fr", "--canary", "1")
    run_command("start", "--page", str(three_pages.news.pk), "--locales", "de")
    first = Run.objects.order_by("pk").first()

    out, _err = run_command("status", str(first.pk))

    assert out.splitlines()[0] == f"Run #{first.pk} (canary): pending"
    assert "en → fr" in out
    assert "none yet" in out


def test_status_names_the_reasons_of_failed_units(
    three_pages, run_command, task_queue, recording_translator
):
    recording_translator.overrides["A quiet story"] = lambda text: LONG_TITLE
    run_command("start", "--subtree", str(three_pages.home.pk), "--locales", "fr")
    task_queue.drain()

    out, _err = run_command("status")

    assert ": partial" in out.splitlines()[0]
    assert "failed 1" in out
    assert "reasons: validation_error 1" in out


# --- --wait ----------------------------------------------------------------------------------


def test_wait_until_succeeded_exits_0_and_prints_the_summary(three_pages, waiting):
    sleeps = waiting(drain=True)

    code, out, _err = run_waiting(
        "start", "--subtree", str(three_pages.home.pk), "--locales", "fr,de"
    )

    assert code == 0
    assert sleeps, "the command returned before the run was processed"
    assert Run.objects.get().status == RunStatus.SUCCEEDED
    assert "Run #" in out and ": succeeded" in out
    assert "6/6 units" in out


def test_wait_json_prints_only_json_on_stdout(three_pages, waiting):
    waiting(drain=True)

    code, out, _err = run_waiting(
        "start", "--page", str(three_pages.home.pk), "--locales", "fr", "--json"
    )

    assert code == 0
    summary = json.loads(out)
    assert summary["status"] == "succeeded"
    assert summary["units"]["succeeded"] == 1


def test_wait_on_a_partial_run_exits_3(three_pages, waiting, recording_translator):
    recording_translator.overrides["A quiet story"] = lambda text: LONG_TITLE
    waiting(drain=True)

    code, out, _err = run_waiting("start", "--subtree", str(three_pages.home.pk), "--locales", "fr")

    run = Run.objects.get()
    assert code == 3
    assert run.status == RunStatus.PARTIAL
    assert run.unit_counts()["failed"] == 1
    assert run.unit_counts()["succeeded"] == 2
    assert ": partial" in out


def test_wait_on_a_failed_run_exits_1(three_pages, waiting, recording_translator):
    # The article and its untranslated parents (which come along) all fail.
    for title in ("A quiet story", three_pages.news.title, three_pages.home.title):
        recording_translator.overrides[title] = lambda text: LONG_TITLE
    waiting(drain=True)

    code, _out, _err = run_waiting(
        "start", "--page", str(three_pages.article.pk), "--locales", "fr"
    )

    assert Run.objects.get().status == RunStatus.FAILED
    assert code == 1


def test_wait_on_a_cancelled_run_exits_4(three_pages, waiting):
    def cancel():
        Run.objects.update(status=RunStatus.CANCELLED)

    waiting(drain=False, on_sleep=cancel)

    code, out, _err = run_waiting("start", "--page", str(three_pages.home.pk), "--locales", "fr")

    assert code == 4
    assert ": cancelled" in out


def test_wait_gives_up_after_the_timeout_with_exit_5(three_pages, waiting):
    sleeps = waiting(drain=False)

    started = time.monotonic()
    code, out, err = run_waiting(
        "start", "--page", str(three_pages.home.pk), "--locales", "fr", "--timeout", "0.1"
    )

    assert code == 5
    assert time.monotonic() - started < 5
    assert sleeps
    assert "--timeout" in err
    assert "(changed):" not in out  # no summary: the run has not ended
    assert Run.objects.get().status in RunStatus.active


def test_wait_with_timeout_0_gives_up_at_once(three_pages, waiting):
    def waited_too_long():
        if len(sleeps) > 20:
            raise AssertionError("--timeout 0 waited forever")

    sleeps = waiting(drain=False, on_sleep=waited_too_long)

    code, _out, err = run_waiting(
        "start", "--page", str(three_pages.home.pk), "--locales", "fr", "--timeout", "0"
    )

    assert code == 5
    assert "--timeout" in err
