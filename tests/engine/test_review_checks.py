"""Checks of one translated text: each flags what an editor should look at, and says why."""

from __future__ import annotations

import pytest

from wagtail_bulk_translate.engine.review_checks import (
    LENGTH_RATIO,
    MISSING_TERM,
    NEVER_TRANSLATE_CHANGED,
    UNCHANGED,
    changed_never_translate,
    length_ratio,
    missing_terms,
    review_flags,
    unchanged_prose,
)
from wagtail_bulk_translate.glossary.lookup import GlossaryEntry

LAWN = GlossaryEntry("lawn", "Rasen")
SHEARS = GlossaryEntry("pruning shears", "Gartenschere")
ACME = GlossaryEntry("ACME", "ACME", case_sensitive=True, never_translate=True)
WAGTAIL = GlossaryEntry("wagtail", "wagtail", never_translate=True)


# --- missing terms -------------------------------------------------------------------------------


def test_a_term_whose_translation_is_missing_is_flagged_by_name():
    flags = missing_terms(
        "Mow the <b>lawn</b> with pruning shears",
        "Mähe die Wiese mit der Gartenschere",
        [LAWN, SHEARS],
    )

    assert [(f.code, f.term) for f in flags] == [(MISSING_TERM, "lawn")]
    assert flags[0].message == "“lawn” should be translated as “Rasen”, which is missing."


def test_a_term_translated_as_the_glossary_says_passes():
    assert missing_terms("Mow the Lawn", "Mähe den <i>rasen</i>", [LAWN]) == []


def test_a_term_absent_from_the_source_is_not_checked():
    assert missing_terms("Mow the lawns", "Mähe die Wiesen", [LAWN]) == []  # "lawns" ≠ "lawn"


def test_case_sensitive_terms_match_their_case_only():
    apple = GlossaryEntry("Apple", "Apple Inc.", case_sensitive=True)

    assert missing_terms("an apple a day", "ein Apfel am Tag", [apple]) == []
    assert [f.term for f in missing_terms("Apple phones", "Apfel-Telefone", [apple])] == ["Apple"]


# --- never-translate terms ---------------------------------------------------------------------


def test_a_never_translate_term_kept_as_written_passes():
    assert changed_never_translate("Buy ACME tools", "Kaufen Sie ACME-Werkzeuge", [ACME]) == []


def test_a_changed_never_translate_term_is_flagged_with_its_counts():
    flags = changed_never_translate("ACME, only ACME", "Acme, nur ACME", [ACME])

    assert [(f.code, f.term) for f in flags] == [(NEVER_TRANSLATE_CHANGED, "ACME")]
    assert flags[0].message == (
        "“ACME” must never be translated, but the translation has it 1 time instead of 2."
    )


def test_each_form_of_a_case_insensitive_never_translate_term_must_stay_as_written():
    flags = changed_never_translate("Wagtail and WAGTAIL", "Bachstelze und WAGTAIL", [WAGTAIL])

    assert [f.term for f in flags] == ["Wagtail"]


# --- unchanged prose ---------------------------------------------------------------------------


def test_prose_returned_unchanged_is_flagged():
    flags = unchanged_prose("Mow the lawn every week.", " Mow the lawn  every week. ")

    assert [(f.code, f.message) for f in flags] == [
        (UNCHANGED, "The translation is the source text, unchanged.")
    ]


@pytest.mark.parametrize("text", ["OK", "ACME Pro 3000", "https://example.com/a-b-c", "42 %"])
def test_short_texts_names_and_codes_may_stay_unchanged(text):
    assert unchanged_prose(text, text, [ACME]) == []


def test_a_text_of_never_translate_terms_only_may_stay_unchanged():
    text = "ACME wagtail ACME"
    assert unchanged_prose(text, text, [ACME, WAGTAIL]) == []


def test_translated_prose_passes():
    assert unchanged_prose("Mow the lawn every week.", "Mähe den Rasen jede Woche.") == []


# --- length ratio ------------------------------------------------------------------------------


def ratio_flags(source: str, translation: str) -> list:
    return length_ratio(source, translation, minimum=0.5, maximum=2.0, min_characters=20)


def test_a_translation_much_longer_than_its_source_is_flagged_with_the_ratio():
    flags = ratio_flags("a" * 40, "b" * 100)

    assert [(f.code, f.ratio) for f in flags] == [(LENGTH_RATIO, 2.5)]
    assert flags[0].message == (
        "The translation is 2.5 times as long as the source (expected between 0.5 and 2)."
    )


def test_a_translation_much_shorter_than_its_source_is_flagged():
    assert [f.ratio for f in ratio_flags("a" * 100, "b" * 30)] == [0.3]


def test_markup_does_not_count_toward_the_length():
    assert ratio_flags("a" * 40, '<a id="a1">' + "b" * 60 + "</a>") == []


def test_short_sources_are_not_measured():
    assert ratio_flags("Go", "Los geht's jetzt sofort") == []


# --- all checks ----------------------------------------------------------------------------------


def test_review_flags_runs_every_check_with_the_configured_bounds(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"REVIEW_MAX_LENGTH_RATIO": 1.1}
    source = "Keep the lawn short with ACME shears, every single week."

    flags = review_flags(source, source + " " + source.replace("ACME", "Acme"), [LAWN, ACME])

    assert [f.code for f in flags] == [MISSING_TERM, LENGTH_RATIO]
    assert review_flags("Keep the lawn short.", "Halte den Rasen kurz.", [LAWN, ACME]) == []
