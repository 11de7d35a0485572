"""Structured answers: every way an answer can fail ends as described, and nothing answered
is paid for twice."""

from __future__ import annotations

import json

import pytest

from tests.translators.conftest import DE, EN
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.translators.llm import answers

# The translator reads the admin's glossary and house style.
pytestmark = pytest.mark.django_db

TEXTS = [
    "The garden centre opens at nine.",
    "Spades, rakes and forks are on sale this week.",
    "Our staff will help you choose.",
    "Delivery is free above fifty euros.",
]


def sent_counts(fake) -> list[int]:
    return [len(r.items) for r in fake.answered()]


def test_the_answer_is_asked_for_with_a_json_schema(llm, fake_openai):
    llm().translate_texts(EN, DE, TEXTS)
    response_format = fake_openai.requests[0].body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"] == answers.SCHEMA
    assert response_format["json_schema"]["strict"] is True


@pytest.mark.parametrize("fault", ["invalid_json", "extra_id", "truncated", "content_filter"])
def test_an_unreadable_answer_splits_the_batch_in_two(llm, fake_openai, fault):
    fake_openai.fail_next(fault)
    result = llm().translate_texts(EN, DE, TEXTS)
    assert set(result.texts) == set(TEXTS) and not result.refused
    assert sent_counts(fake_openai) == [4, 2, 2]


def test_a_context_length_error_splits_the_batch(llm, fake_openai):
    fake_openai.fail_next("context_length")
    result = llm().translate_texts(EN, DE, TEXTS)
    assert set(result.texts) == set(TEXTS)
    assert [(r.status, len(r.items)) for r in fake_openai.requests] == [
        (400, 4),
        (200, 2),
        (200, 2),
    ]


def test_a_text_too_long_for_the_context_is_refused_alone(llm, fake_openai):
    fake_openai.fault_on("Spades", "context_length")
    result = llm().translate_texts(EN, DE, TEXTS)
    assert set(result.texts) == set(TEXTS) - {TEXTS[1]}
    assert result.refused[TEXTS[1]].code == ErrorCode.TOO_LARGE


def test_a_missing_id_keeps_the_answered_texts_and_sends_only_the_missing_one(llm, fake_openai):
    fake_openai.fault_on("Spades", "missing_id", times=1)
    result = llm().translate_texts(EN, DE, TEXTS)
    assert set(result.texts) == set(TEXTS)
    assert sent_counts(fake_openai) == [4, 1]
    # Each text was answered (and paid for) once, but for the one left out.
    assert sorted(fake_openai.texts_sent()) == sorted([*TEXTS, TEXTS[1]])


@pytest.mark.parametrize(
    ("fault", "code", "reason"),
    [
        ("invalid_json", ErrorCode.INVALID_ANSWER, "not JSON"),
        ("missing_id", ErrorCode.INVALID_ANSWER, "left this text out"),
        ("truncated", ErrorCode.TOO_LARGE, "cut short"),
        ("refusal", ErrorCode.MODEL_REFUSED, "refused"),
        ("content_filter", ErrorCode.MODEL_REFUSED, "content filter"),
    ],
)
def test_a_single_text_that_keeps_failing_is_refused_alone(llm, fake_openai, fault, code, reason):
    fake_openai.fault_on("Spades", fault)
    result = llm().translate_texts(EN, DE, TEXTS)
    assert set(result.texts) == set(TEXTS) - {TEXTS[1]}
    refusal = result.refused[TEXTS[1]]
    assert refusal.code == code
    assert reason in refusal.message
    # Halved down to the text, which is sent once more alone before it is refused (a text left
    # out of an answer is sent alone at once, the others' answers kept).
    alone = [r for r in fake_openai.answered() if list(r.items.values()) == [TEXTS[1]]]
    assert len(alone) == (1 if fault == "missing_id" else 2)


def test_a_refusal_quotes_the_model(llm, fake_openai):
    fake_openai.fault_on("Spades", "refusal")
    result = llm().translate_texts(EN, DE, TEXTS)
    assert "I'm sorry, but I can't help with that request." in result.refused[TEXTS[1]].message


def test_an_echo_of_prose_is_suspicious_output(llm, fake_openai):
    fake_openai.fault_on("Spades", "echo")
    result = llm().translate_texts(EN, DE, TEXTS)
    refusal = result.refused[TEXTS[1]]
    assert refusal.code == ErrorCode.SUSPICIOUS_OUTPUT
    assert "untranslated" in refusal.message and TEXTS[1] in refusal.message
    assert len(fake_openai.answered()) == 1  # not asked again: the batch's other answers stand


def test_an_answer_far_shorter_than_its_source_is_suspicious_output(llm, fake_openai):
    fake_openai.fault_on("Spades", "short")
    result = llm().translate_texts(EN, DE, TEXTS)
    assert result.refused[TEXTS[1]].code == ErrorCode.SUSPICIOUS_OUTPUT
    assert "MIN_LENGTH_RATIO" in result.refused[TEXTS[1]].message
    assert '"Ok"' in result.refused[TEXTS[1]].message


def test_length_bounds_are_options(llm, fake_openai):
    result = llm(MAX_LENGTH_RATIO=1.1).translate_texts(EN, DE, TEXTS[:1])
    assert result.refused[TEXTS[0]].code == ErrorCode.SUSPICIOUS_OUTPUT


def test_a_short_text_identical_to_its_source_is_accepted():
    assert answers.suspicion("Wagtail", "Wagtail", answers.Bounds()) is None
    assert answers.suspicion("OK", "D'accord, très bien", answers.Bounds()) is None
    assert answers.suspicion("Read the guide now", "Read the guide now", answers.Bounds())


def test_json_mode_answers_are_validated_the_same_way(llm, fake_openai):
    fake_openai.fail_next("extra_id")
    result = llm(RESPONSE_FORMAT="json_object").translate_texts(EN, DE, TEXTS)
    assert set(result.texts) == set(TEXTS)
    assert sent_counts(fake_openai) == [4, 2, 2]


def test_read_rejects_malformed_shapes():
    with pytest.raises(answers.BadAnswer, match="no list"):
        answers.read(json.dumps({"items": []}), "stop", None, ["1"])
    with pytest.raises(answers.BadAnswer, match="malformed"):
        answers.read(json.dumps({"translations": [{"id": "1"}]}), "stop", None, ["1"])
    found, missing = answers.read(
        json.dumps({"translations": [{"id": "1", "text": "x"}]}), "stop", None, ["1", "2"]
    )
    assert (found, missing) == ({"1": "x"}, ["2"])


def test_a_json_answer_in_a_code_fence_is_read():
    fenced = '```json\n{"translations": [{"id": "1", "text": "Hallo"}]}\n```'
    assert answers.read(fenced, "stop", None, ["1"]) == ({"1": "Hallo"}, [])
