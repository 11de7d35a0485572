"""Inline markup ↔ placeholders: link targets and attributes never sent, answers checked."""

from __future__ import annotations

import pytest

from tests.translators.conftest import DE, EN
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.translators.llm.markup import (
    BrokenMarkup,
    plain_text,
    protect,
    restored,
)

# The translator reads the admin's glossary and house style.
pytestmark = pytest.mark.django_db

SOURCE = 'Read <a id="a1">the <b>guide</b></a><br/>Fish &amp; chips &lt;3'


def test_tags_become_numbered_placeholders_without_attributes():
    protected = protect(SOURCE)
    assert protected.text == "Read <1>the <2>guide</2></1><3/>Fish & chips <3"
    assert "a1" not in protected.text and "id=" not in protected.text


def test_an_answer_with_the_same_placeholders_comes_back_as_html():
    answer = "Lies <1>den <2>Leitfaden</2></1><3/>Fisch & Pommes <3"
    assert restored(protect(SOURCE), answer) == (
        'Lies <a id="a1">den <b>Leitfaden</b></a><br/>Fisch &amp; Pommes &lt;3'
    )


def test_placeholders_may_move_with_the_words():
    assert restored(protect("<b>Big</b> news"), "Nouvelles <1>énormes</1>") == (
        "Nouvelles <b>énormes</b>"
    )


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("Lies den Leitfaden<3/>", "missing"),
        ("Lies <1>den <2>Leitfaden</2></1><3/><3/>", "unexpected <3/>"),
        ("Lies <1>den <2>Leitfaden</1></2><3/>", "out of order"),
        ("Lies <1>den <2>Leitfaden</2><3/>", "missing </1>"),
        ("Lies <1>den <2>Leitfaden</2></1><3/><4>", "unexpected <4>"),
    ],
)
def test_a_broken_answer_says_what_broke(answer, problem):
    with pytest.raises(BrokenMarkup, match=problem):
        restored(protect(SOURCE), answer)


def test_a_link_target_is_never_sent(llm, fake_openai):
    llm().translate_texts(EN, DE, [SOURCE])
    sent = str(fake_openai.requests[0].body)
    assert "a1" not in sent and "href" not in sent and "<a " not in sent


def test_markup_survives_the_round_trip(llm, fake_openai):
    result = llm().translate_texts(EN, DE, [SOURCE, "  <i>Padded</i> "])
    assert result.texts[SOURCE].startswith('[de: Ŕéáđ <a id="a1">ţĥé <b>ĝúíđé</b></a><br/>')
    assert "&amp;" in result.texts[SOURCE]
    assert result.texts["  <i>Padded</i> "].startswith("  [de: <i>")
    assert result.texts["  <i>Padded</i> "].endswith("] ")


def test_a_dropped_placeholder_is_retried_once(llm, fake_openai):
    fake_openai.fault_on("guide", "drop_placeholder", times=1)
    result = llm().translate_texts(EN, DE, [SOURCE, "Another sentence here."])
    assert set(result.texts) == {SOURCE, "Another sentence here."}
    assert not result.refused
    # The text whose markup broke went again, alone: the other was not paid twice.
    assert [list(r.items.values()) for r in fake_openai.answered()][1] == [protect(SOURCE).text]


def test_markup_broken_twice_is_refused_as_invalid_markup(llm, fake_openai):
    fake_openai.fault_on("guide", "drop_placeholder")
    result = llm().translate_texts(EN, DE, [SOURCE, "Another sentence here."])
    assert list(result.texts) == ["Another sentence here."]
    refusal = result.refused[SOURCE]
    assert refusal.code == ErrorCode.INVALID_MARKUP
    assert "twice" in refusal.message and "missing" in refusal.message
    assert len(fake_openai.answered()) == 2


def test_plain_text_is_what_a_reader_sees():
    assert plain_text(SOURCE) == "Read  the  guide   Fish & chips <3"
