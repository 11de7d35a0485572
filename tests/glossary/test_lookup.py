from __future__ import annotations

from wagtail_bulk_translate.glossary.lookup import (
    GlossaryEntry,
    HouseStyle,
    entries_in_texts,
    glossary_entries,
    house_style,
)
from wagtail_bulk_translate.models import HouseStyle as HouseStyleRow


def test_entries_of_a_pair_hold_its_translations_and_every_never_translate_term(locales, add_term):
    add_term("pruning shears", de="Gartenschere", fr="sécateur")
    add_term("ACME", never=True, case=True)
    add_term("lawn", fr="pelouse")  # no German translation
    add_term("Rasen", "de", en="lawn")  # another source language

    entries = glossary_entries(locales["en"], locales["de"])

    assert entries == [
        GlossaryEntry("ACME", "ACME", case_sensitive=True, never_translate=True),
        GlossaryEntry("pruning shears", "Gartenschere"),
    ]
    assert glossary_entries(locales["en"].pk, locales["fr"].pk)[1:] == [
        GlossaryEntry("lawn", "pelouse"),
        GlossaryEntry("pruning shears", "sécateur"),
    ]


def test_a_never_translate_term_ignores_its_leftover_translations(locales, add_term):
    add_term("Wagtail", never=True, de="Bachstelze")

    assert glossary_entries(locales["en"], locales["de"]) == [
        GlossaryEntry("Wagtail", "Wagtail", never_translate=True)
    ]


def test_entries_in_texts_keeps_those_a_batch_mentions_as_whole_words():
    entries = [
        GlossaryEntry("lawn", "Rasen"),
        GlossaryEntry("ACME", "ACME", case_sensitive=True, never_translate=True),
        GlossaryEntry("C++", "C++"),
    ]

    found = entries_in_texts(entries, ["Mow the <b>Lawn</b>", "Acme lawns", "Learn C++ now"])

    assert found == [entries[0], entries[2]]  # "lawns" is not "lawn"; "Acme" is not "ACME"


def test_house_style_of_a_locale(locales):
    assert house_style(locales["de"]) == HouseStyle()
    HouseStyleRow.objects.create(
        locale=locales["de"], formality="prefer_less", instructions=" Duze die Leser. "
    )

    assert house_style(locales["de"].pk) == HouseStyle("prefer_less", "Duze die Leser.")
