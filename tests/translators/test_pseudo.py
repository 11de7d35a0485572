"""The pseudo translator: visible, deterministic, and markup-safe."""

from __future__ import annotations

import re

import pytest
from wagtail.models import Locale
from wagtail_localize.strings import StringValue, validate_translation_links

from wagtail_bulk_translate.translators.pseudo import PseudoTranslator, pseudo_localize

TAGS = re.compile(r"<[^>]*>")
ENTITIES = re.compile(r"&#?\w+;")

MARKUP_CASES = [
    'This is <b>bold</b> and a <a id="a1">link</a>.',
    "<b><i>Nested</i> emphasis</b> inside",
    "First line<br/>second line",
    'See <a id="a1">this</a> and <a id="a2">that <b>page</b></a>',
    "Tom &amp; Jerry &lt;3 it&#39;s <code>x &gt; y</code>",
    "<abbr>HTML</abbr>, <strong>strong</strong>, <em>em</em>",
]

LONG_TEXTS = [
    "Our team helps museums publish their collections online.",
    'Read the <a id="a1">annual report</a> for the <b>full figures</b> of the year.',
    "Opening hours change during the summer holidays, please check before visiting.",
]


def fr() -> Locale:
    return Locale(language_code="fr")


def en() -> Locale:
    return Locale(language_code="en")


def text_of(html: str) -> str:
    return StringValue(html).render_text()


def test_letters_are_accented_padded_and_bracketed():
    assert pseudo_localize("Hello world") == "[Ĥéļļó ŵóŕļđ ····]"
    assert pseudo_localize("Hello world", "fr") == "[fr: Ĥéļļó ŵóŕļđ ····]"


@pytest.mark.parametrize("source", MARKUP_CASES)
def test_markup_is_kept_byte_for_byte(source):
    out = pseudo_localize(source, "fr")
    assert TAGS.findall(out) == TAGS.findall(source)
    assert ENTITIES.findall(out) == ENTITIES.findall(source)
    # Text between the tags did change.
    assert TAGS.sub("", out) != TAGS.sub("", source)


@pytest.mark.parametrize("source", MARKUP_CASES)
def test_output_is_valid_translated_html_with_known_link_ids(source):
    out = pseudo_localize(source, "fr")
    assert StringValue.from_translated_html(out).render_text()
    validate_translation_links(source, out)  # raises on unknown <a> ids


def test_link_attributes_survive_the_round_trip_through_wagtail_localize():
    source, attrs = StringValue.from_source_html('Read <a href="https://example.com/">more</a>')
    out = PseudoTranslator({}).translate(en(), fr(), [source])[source]
    assert out.render_html(attrs) == '[fr: Ŕéáđ <a href="https://example.com/">ḿóŕé</a> ···]'


def test_entities_are_not_accented_letter_by_letter():
    out = pseudo_localize("Fish &amp; chips&#39;s &lt;best&gt; &#x27;", "fr")
    for entity in ("&amp;", "&#39;", "&lt;", "&gt;", "&#x27;"):
        assert entity in out
    assert "ç" in out and "ĥ" in out


def test_placeholders_are_kept_but_percent_signs_in_prose_are_not_placeholders():
    out = pseudo_localize("Hi {name}, you have %(count)s new %s, {{ total }} at 50% discount")
    for placeholder in ("{name}", "%(count)s", "%s", "{{ total }}"):
        assert placeholder in out
    assert "Ĥí" in out and "50% đíšçóúñţ" in out


def test_same_input_gives_same_output():
    translator = PseudoTranslator({})
    strings = [StringValue(s) for s in MARKUP_CASES]
    first = translator.translate(en(), fr(), strings)
    second = PseudoTranslator({}).translate(en(), fr(), list(reversed(strings)))
    assert first == second
    assert pseudo_localize(MARKUP_CASES[0], "de") == pseudo_localize(MARKUP_CASES[0], "de")


@pytest.mark.parametrize("source", LONG_TEXTS)
def test_expansion_is_visible_and_bounded(source):
    ratio = len(text_of(pseudo_localize(source, "fr"))) / len(text_of(source))
    assert 1.2 <= ratio <= 2


def test_surrounding_whitespace_stays_outside_and_blank_strings_are_unchanged():
    assert pseudo_localize("  and more ", "fr") == "  [fr: áñđ ḿóŕé ···] "
    assert pseudo_localize("") == ""
    assert pseudo_localize(" \n ") == " \n "


def test_show_locale_option_defaults_to_true():
    source = StringValue("Contact us")
    assert PseudoTranslator({}).translate(en(), fr(), [source])[source].data.startswith("[fr: ")
    assert PseudoTranslator(None).translate(en(), fr(), [source])[source].data.startswith("[fr: ")
    hidden = PseudoTranslator({"SHOW_LOCALE": False}).translate(en(), fr(), [source])[source]
    assert hidden.data == "[Çóñţáçţ úš ···]"


def test_translate_returns_a_string_value_for_every_input():
    strings = [StringValue("One"), StringValue("<b>Two</b>"), StringValue("One"), StringValue("")]
    result = PseudoTranslator({}).translate(en(), fr(), iter(strings))
    assert set(result) == set(strings)
    assert all(isinstance(value, StringValue) for value in result.values())
    assert result[StringValue("<b>Two</b>")].data == "[fr: <b>Ţŵó</b> ·]"
    assert PseudoTranslator({}).translate(en(), fr(), []) == {}


def test_can_translate_when_language_codes_differ():
    translator = PseudoTranslator({})
    assert translator.can_translate(en(), fr())
    assert translator.can_translate(Locale(language_code="en-gb"), Locale(language_code="en-us"))
    assert not translator.can_translate(fr(), fr())
    assert translator.display_name == "Pseudo-localization"
