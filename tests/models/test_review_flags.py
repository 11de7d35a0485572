"""A review flag found by a worker reads in the language of the editor who reads it."""

from __future__ import annotations

from django.utils import translation

from wagtail_bulk_translate.engine.review import flag_entry
from wagtail_bulk_translate.engine.review_checks import missing_terms, unchanged_prose
from wagtail_bulk_translate.glossary.lookup import GlossaryEntry
from wagtail_bulk_translate.models import UnitReview
from wagtail_bulk_translate.models.review_flags import (
    NEVER_TRANSLATE_CHANGED,
    flag_message,
    shown_message,
)


def stored_flags(source: str, translated: str, entries) -> list[dict]:
    """The flags as the worker stores them, found in English (the site's language)."""
    with translation.override("en"):
        flags = missing_terms(source, translated, entries) + unchanged_prose(source, translated)
        return [flag_entry(flag, source, translated) for flag in flags]


def test_a_flag_found_in_english_reads_in_german_for_a_german_editor():
    lawn = GlossaryEntry("lawn", "Rasen", False)
    flags = stored_flags("Mow the lawn today please", "Mow the lawn today please", [lawn])
    review = UnitReview(flags=flags)
    assert flags[0]["message"] == "“lawn” should be translated as “Rasen”, which is missing."

    with translation.override("de"):
        shown = [flag["message"] for flag in review.shown_flags]
        reasons = review.reasons

    assert shown == reasons
    assert shown[0] == "„lawn“ sollte mit „Rasen“ übersetzt werden, was fehlt."
    assert "unchanged" not in shown[1] and shown[1]


def test_counts_are_told_with_the_languages_plural():
    one = flag_message(NEVER_TRANSLATE_CHANGED, {"term": "ACME", "kept": 1, "count": 2})
    none = flag_message(NEVER_TRANSLATE_CHANGED, {"term": "ACME", "kept": 0, "count": 2})
    assert "has it 1 time instead of 2" in one
    assert "has it 0 times instead of 2" in none


def test_a_flag_stored_without_its_values_shows_its_stored_sentence():
    old = {"code": "missing_term", "message": "Stored before values were."}
    held = {"code": "translator_error", "message": "DeepL answered 456.", "params": {}}
    assert shown_message(old) == "Stored before values were."
    assert shown_message(held) == "DeepL answered 456."
