"""Bad input is refused before anything happens, with a message that says what to do next;
every subcommand's --help shows its options' choices and defaults."""

from __future__ import annotations

import pytest
from wagtail.models import Page

from tests.cli.conftest import parse_error, parser_for_command_line, run_waiting
from wagtail_bulk_translate.models import Run, RunStatus

pytestmark = pytest.mark.django_db

SUBCOMMANDS = [
    "start",
    "status",
    "list",
    "units",
    "cancel",
    "pause",
    "resume",
    "retry",
    "promote",
    "revert",
]


def help_of(capsys, subcommand):
    with pytest.raises(SystemExit):
        parser_for_command_line().parse_args([subcommand, "--help"])
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
def test_every_subcommand_has_help_with_a_description(capsys, subcommand):
    text = help_of(capsys, subcommand)

    assert f"bulk_translate {subcommand}" in text
    assert "--json" in text or subcommand in ("start",)


def test_start_help_shows_choices_and_defaults(capsys):
    text = help_of(capsys, "start")

    assert "--mode {changed,refresh,overwrite}" in text
    assert "(default: changed)" in text
    assert "--publish {draft,publish,mirror}" in text
    assert "(default: draft)" in text
    assert "--content {live,draft}" in text
    assert "(default: live)" in text
    assert "--setting-models APP.MODEL" in text
    assert "Ctrl-C stops waiting; the run goes on" in text


def test_units_and_list_help_show_choices_and_defaults(capsys):
    units = help_of(capsys, "units")
    runs = help_of(capsys, "list")

    assert "--status {pending,running,succeeded,skipped,failed,cancelled}" in units
    assert "(default: 200)" in units
    assert "(default: 20)" in runs


def test_retry_help_lists_the_error_codes(capsys):
    text = help_of(capsys, "retry")

    assert "validation_error" in text
    assert "invalid_markup" in text


# --- 9.8: --settings belongs to Django --------------------------------------------------------


def test_the_settings_models_flag_is_not_djangos_settings(capsys):
    options = parser_for_command_line().parse_args(
        ["start", "--setting-models", "demo.SiteBranding", "--locales", "fr"]
    )
    assert options.setting_models == ["demo.SiteBranding"]

    assert "--settings" not in help_of(capsys, "start").replace("--setting-models", "")


# --- 12.10: numbers are bounded --------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["start", "--all", "--locales", "fr", "--canary", "2147483648"], "--canary must be"),
        (["start", "--subtree", "2147483648", "--locales", "fr"], "a page id must be"),
        (["start", "--page", "99999999999999999999", "--locales", "fr"], "a page id must be"),
        (["start", "--page", "-1", "--locales", "fr"], "a page id must be"),
        (["status", "9223372036854775808"], "a run id must be"),
        (["status", "²"], "a run id must be"),
        (["status", "٣"], "a run id must be"),
        (["status", "+3"], "a run id must be"),
        (["status", "1_0"], "a run id must be"),
        (["cancel", "9" * 5000], "a run id must be"),
        (["review", "list", "--run", "99999999999999999999"], "a run id must be"),
        (["review", "list", "--run", "²"], "a run id must be"),
        (["review", "accept", "-1"], "a unit id must be"),
        (["review", "accept", "99999999999999999999"], "a unit id must be"),
        (["review", "dismiss", "²"], "a unit id must be"),
        (["retry", "-5"], "a run id must be"),
        (["units", "0"], "a run id must be"),
        (["start", "--all", "--locales", "fr", "--timeout", "-1"], "--timeout must be"),
        (["start", "--all", "--locales", "fr", "--timeout", "nan"], "--timeout must be"),
        (["start", "--all", "--locales", "fr", "--timeout", "inf"], "--timeout must be"),
        (["status", "--timeout", "1e30"], "--timeout must be"),
        (["list", "--limit", "0"], "--limit must be"),
    ],
)
def test_numbers_out_of_range_exit_2_naming_the_range(capsys, argv, expected):
    assert expected in parse_error(capsys, *argv)


def test_an_object_pk_out_of_range_is_refused_not_a_database_error(three_pages, bad_arguments):
    message = bad_arguments("start", "--object", "demo.Category:99999999999999", "--locales", "fr")

    assert "demo.Category 99999999999999 does not exist" in message
    assert not Run.objects.exists()


def test_a_huge_canary_through_the_api_is_refused(three_pages, start):
    from wagtail_bulk_translate.errors import RunConfigurationError

    with pytest.raises(RunConfigurationError, match="leave the canary out"):
        start(
            scope={"pages": [{"id": three_pages.home.pk}]},
            source_locale="en",
            target_locales=["fr"],
            canary_size=2**31,
        )
    assert not Run.objects.exists()


# --- 12.11: retry filters are checked ---------------------------------------------------------


@pytest.fixture
def finished_run(three_pages, run_command, task_queue):
    run_command("start", "--subtree", str(three_pages.home.pk), "--locales", "fr,de")
    task_queue.drain()
    return Run.objects.get()


def test_retry_with_an_unknown_error_code_lists_the_codes(finished_run, capsys):
    err = parse_error(capsys, "retry", str(finished_run.pk), "--error-code", "bogus")

    assert "invalid choice: 'bogus'" in err
    assert "validation_error" in err


def test_retry_with_a_locale_outside_the_run_lists_the_run_locales(finished_run, bad_arguments):
    message = bad_arguments("retry", str(finished_run.pk), "--locale", "xx")

    assert "has no target locale 'xx'" in message
    assert "choose among de, fr" in message


def test_retry_with_an_unknown_model_lists_the_run_models(finished_run, bad_arguments):
    unknown = bad_arguments("retry", str(finished_run.pk), "--model", "demo.Nope")
    absent = bad_arguments("retry", str(finished_run.pk), "--model", "demo.Category")

    assert "Unknown model 'demo.Nope'" in unknown
    assert "demo.ArticlePage" in unknown
    assert "has no unit of demo.Category" in absent
    assert "demo.HomePage" in absent


def test_retry_with_valid_filters_still_works(finished_run, run_command):
    out, _err = run_command(
        "retry", str(finished_run.pk), "--locale", "fr", "--model", "demo.HomePage"
    )

    assert "nothing was queued" in out


def test_retrying_a_cancelled_run_gives_the_command_for_a_new_run(three_pages, run_command):
    run_command("start", "--subtree", str(three_pages.home.pk), "--locales", "fr")
    run = Run.objects.get()
    run_command("cancel", str(run.pk))

    with pytest.raises(Exception) as excinfo:
        run_command("retry", str(run.pk))

    message = str(excinfo.value)
    assert "A cancelled run cannot be retried — start a new run with the same scope:" in message
    assert f"start --subtree {three_pages.home.pk} --source en --locales fr" in message


def test_cancelling_a_finished_run_points_at_revert(finished_run, bad_arguments):
    message = bad_arguments("cancel", str(finished_run.pk))

    assert "already ended (succeeded)" in message
    assert f"revert {finished_run.pk}" in message


def test_promoting_a_run_that_is_not_a_canary_says_how_to_make_one(finished_run, bad_arguments):
    assert "--canary N" in bad_arguments("promote", str(finished_run.pk))


# --- 12.12: pages outside the source locale, and the tree root --------------------------------


def test_a_page_in_a_target_locale_is_refused_naming_its_source_page(three_pages, bad_arguments):
    french_news = three_pages.news.copy_for_translation(
        three_pages.locales["fr"], copy_parents=True
    )

    message = bad_arguments("start", "--page", str(french_news.pk), "--locales", "de")

    assert "not in the source locale" in message
    assert f"Its English version is page {three_pages.news.pk}" in message
    assert not Run.objects.exists()


def test_the_tree_root_is_refused_up_front(three_pages, bad_arguments):
    root = Page.get_first_root_node()

    for flag in ("--page", "--subtree"):
        message = bad_arguments("start", flag, str(root.pk), "--locales", "fr")
        assert "root of the page tree" in message
    assert not Run.objects.exists()


# --- 10.7: --wait says how long it waits and how to leave --------------------------------------


def test_wait_without_timeout_says_it_waits_until_the_end_and_how_to_leave(three_pages, waiting):
    waiting(drain=True)

    code, out, _err = run_waiting("start", "--page", str(three_pages.home.pk), "--locales", "fr")

    assert code == 0
    assert "Waiting until run" in out
    assert "Ctrl-C stops waiting and leaves the run going" in out


def test_ctrl_c_while_waiting_leaves_the_run_going(three_pages, waiting):
    def interrupt():
        raise KeyboardInterrupt

    waiting(drain=False, on_sleep=interrupt)

    code, _out, err = run_waiting("start", "--page", str(three_pages.home.pk), "--locales", "fr")

    assert code == 130
    assert "goes on" in err
    assert Run.objects.get().status in RunStatus.active
