"""``bulk_translate review list|accept|dismiss|retranslate``, in text and with --json."""

from __future__ import annotations

import json

import pytest
from wagtail.log_actions import registry as log_registry
from wagtail.models import Page

from tests.cli.conftest import parse_error
from wagtail_bulk_translate.models import (
    GlossaryTerm,
    GlossaryTranslation,
    ReviewState,
    Run,
    UnitReview,
)
from wagtail_bulk_translate.runs.review import ACCEPTED, DISMISSED

pytestmark = pytest.mark.django_db


@pytest.fixture
def flagged(three_pages, run_command, task_queue, recording_translator):
    """A publishing run into fr; the translator ignores the glossary's "story" → "histoire",
    so the article waits for review as a draft."""
    locales = three_pages.locales
    term = GlossaryTerm.objects.create(source_locale=locales["en"], source_term="story")
    GlossaryTranslation.objects.create(
        term=term, target_locale=locales["fr"], target_term="histoire"
    )
    run_command(
        "start", "--subtree", str(three_pages.home.pk), "--locales", "fr", "--publish", "publish"
    )
    task_queue.drain()
    run = Run.objects.get()
    return run, run.units.get(object_key=three_pages.article.translation_key)


def french_article(three_pages) -> Page:
    key = three_pages.article.translation_key
    return Page.objects.get(translation_key=key, locale__language_code="fr")


def test_list_in_text_and_json(flagged, run_command):
    run, unit = flagged

    text, _err = run_command("review", "list")
    out, _err = run_command("review", "list", "--run", str(run.pk), "--json")

    assert f"unit #{unit.pk} (run #{run.pk})" in text and "histoire" in text
    rows = json.loads(out)
    assert [row["unit"] for row in rows] == [unit.pk]
    assert rows[0]["flags"][0]["code"] == "missing_term"
    assert rows[0]["flags"][0]["term"] == "story"
    assert rows[0]["would_publish"] is True


def test_accept_json_publishes_and_logs(flagged, run_command, three_pages):
    run, unit = flagged
    assert not french_article(three_pages).live

    out, err = run_command("review", "accept", str(unit.pk), "--json")

    row = json.loads(out)[0]
    assert row["state"] == "accepted" and row["published"] is True
    assert "published" in err
    assert french_article(three_pages).live
    assert log_registry.get_logs_for_instance(run).filter(action=ACCEPTED).exists()
    assert json.loads(run_command("review", "list", "--json")[0]) == []


def test_dismiss_and_retranslate(flagged, run_command, three_pages):
    run, unit = flagged

    out, _err = run_command("review", "dismiss", str(unit.pk), "--json")

    assert json.loads(out)[0]["state"] == "dismissed"
    assert log_registry.get_logs_for_instance(run).filter(action=DISMISSED).exists()
    UnitReview.objects.filter(pk=unit.pk).update(state=ReviewState.PENDING)
    out, _err = run_command("review", "retranslate", str(unit.pk), "--json")
    row = json.loads(out)[0]
    assert row["state"] == "retranslated"
    assert Run.objects.get(pk=row["retranslation_run"]).mode == "refresh"


def test_bad_requests_are_refused_with_a_clear_message(flagged, bad_arguments):
    _run, unit = flagged
    assert "needs unit ids" in bad_arguments("review", "accept")
    assert "one unit id" in bad_arguments("review", "retranslate", str(unit.pk), "1")
    assert "not waiting for review" in bad_arguments("review", "dismiss", "99999")


def test_retranslate_with_a_term_corrects_the_glossary_first(flagged, run_command, task_queue):
    _run, unit = flagged

    _out, err = run_command(
        "review", "retranslate", str(unit.pk), "--term", "story=récit", "--json"
    )

    assert "Added “story” to the glossary. Translating unit" in err
    assert GlossaryTranslation.objects.get().target_term == "récit"
    unit.review.refresh_from_db()
    assert unit.review.state == ReviewState.RETRANSLATED
    task_queue.drain()
    assert unit.review.retranslated_by.units.get().status == "succeeded"


def test_retranslate_with_a_never_translate_term(flagged, run_command):
    _run, unit = flagged
    run_command("review", "retranslate", str(unit.pk), "--never-translate", "Northwind")
    assert GlossaryTerm.objects.get(source_term="Northwind").never_translate


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["dismiss", "{unit}", "--term", "a=b"], "go with review retranslate only"),
        (["retranslate", "99999", "--term", "a=b"], "Unit #99999 is not waiting for review"),
    ],
)
def test_term_options_out_of_place_are_refused(flagged, bad_arguments, args, message):
    _run, unit = flagged
    assert message in bad_arguments("review", *[a.format(unit=unit.pk) for a in args])
    assert not GlossaryTerm.objects.filter(source_term="a").exists()


@pytest.mark.parametrize("value", ["story", "=récit", "story=", " = "])
def test_a_term_without_both_sides_is_refused_by_the_parser(capsys, value):
    assert "--term is SOURCE=TARGET" in parse_error(
        capsys, "review", "retranslate", "1", "--term", value
    )
