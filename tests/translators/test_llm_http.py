"""The openai client's edge: each provider failure becomes the plugin's error, over real HTTP."""

from __future__ import annotations

import pytest

from tests.translators.conftest import DE, EN
from wagtail_bulk_translate.errors import (
    AnswerLostError,
    ErrorCode,
    QuotaExceededError,
    TransientTranslatorError,
    TranslatorConfigError,
)

# The translator reads the admin's glossary and house style.
pytestmark = pytest.mark.django_db

TEXTS = ["Our garden shop is open on Sundays.", "Spades and rakes."]


def test_a_rate_limit_waits_for_retry_after_then_succeeds(llm, fake_openai):
    fake_openai.fail_next("rate_limit", times=2, retry_after=0.05)
    result = llm().translate_texts(EN, DE, TEXTS)
    assert set(result.texts) == set(TEXTS)
    assert [r.status for r in fake_openai.requests] == [429, 429, 200]


def test_a_rate_limit_beyond_the_retries_is_transient_and_rate_limited(llm, fake_openai):
    fake_openai.fail_next("rate_limit", times=5, retry_after=0.01)
    with pytest.raises(TransientTranslatorError) as caught:
        llm(MAX_RETRIES=2).translate_texts(EN, DE, TEXTS)
    assert caught.value.code == ErrorCode.RATE_LIMITED
    assert len(fake_openai.requests) == 3


def test_a_retry_after_too_long_to_wait_is_left_to_the_unit_back_off(llm, fake_openai):
    fake_openai.fail_next("rate_limit", retry_after=3600)
    with pytest.raises(TransientTranslatorError):
        llm().translate_texts(EN, DE, TEXTS)
    assert len(fake_openai.requests) == 1


def test_insufficient_quota_is_quota_exceeded_and_not_retried(llm, fake_openai):
    fake_openai.fail_next("quota")
    with pytest.raises(QuotaExceededError) as caught:
        llm().translate_texts(EN, DE, TEXTS)
    assert caught.value.code == ErrorCode.QUOTA_EXCEEDED
    assert "quota" in caught.value.message
    assert len(fake_openai.requests) == 1


def test_server_errors_are_retried_then_transient(llm, fake_openai):
    fake_openai.fail_next("server_error", times=2)
    assert len(llm(MAX_RETRIES=2).translate_texts(EN, DE, TEXTS).texts) == 2

    fake_openai.fail_next("server_error", times=3)
    with pytest.raises(TransientTranslatorError) as caught:
        llm(MAX_RETRIES=2).translate_texts(EN, DE, TEXTS)
    assert caught.value.code == ErrorCode.TRANSLATOR_ERROR
    assert "500" in caught.value.message


def test_dropped_connections_are_retried(llm, fake_openai):
    fake_openai.fail_next("drop")
    assert len(llm().translate_texts(EN, DE, TEXTS).texts) == 2

    fake_openai.fail_next("drop", times=3)
    with pytest.raises(AnswerLostError, match="dropped the connection"):
        llm(MAX_RETRIES=2).translate_texts(EN, DE, TEXTS)


def test_a_server_that_cannot_be_reached_lost_no_answer(llm):
    # Nothing went out, so nothing may have been paid for: not "sent without an answer".
    with pytest.raises(TransientTranslatorError, match="could not be reached") as caught:
        llm(BASE_URL="http://127.0.0.1:9/v1", MAX_RETRIES=0).translate_texts(EN, DE, TEXTS)
    assert not caught.value.answer_lost


def test_a_slow_answer_times_out_and_is_retried(llm, fake_openai):
    fake_openai.fail_next("slow", delay=1.5)
    result = llm(TIMEOUT=0.5).translate_texts(EN, DE, TEXTS)
    assert len(result.texts) == 2

    fake_openai.fail_next("slow", times=2, delay=1.5)
    with pytest.raises(TransientTranslatorError, match="in time"):
        llm(TIMEOUT=0.5, MAX_RETRIES=1).translate_texts(EN, DE, TEXTS)


def test_a_rejected_key_is_a_configuration_error(llm, fake_openai):
    fake_openai.rejected_keys.add("sk-test")
    with pytest.raises(TranslatorConfigError, match="401") as caught:
        llm().translate_texts(EN, DE, TEXTS)
    assert caught.value.code == ErrorCode.AUTH_CONFIG
    assert "API_KEY" in caught.value.message
    assert len(fake_openai.requests) == 1


def test_a_wrong_base_url_is_a_configuration_error(llm, fake_openai):
    with pytest.raises(TranslatorConfigError, match=r"404.*BASE_URL"):
        llm(BASE_URL=fake_openai.url + "/nowhere").translate_texts(EN, DE, ["Hi there."])


def test_a_refused_response_format_names_the_option(llm, fake_openai):
    fake_openai.supports["json_schema"] = False
    with pytest.raises(TranslatorConfigError, match="RESPONSE_FORMAT"):
        llm().translate_texts(EN, DE, TEXTS)

    result = llm(RESPONSE_FORMAT="json_object").translate_texts(EN, DE, TEXTS)
    assert len(result.texts) == 2
    assert fake_openai.requests[-1].body["response_format"] == {"type": "json_object"}


def test_a_model_that_refuses_a_temperature_is_asked_without_one(llm, fake_openai):
    fake_openai.accepts_temperature = False
    translator = llm()
    assert len(translator.translate_texts(EN, DE, TEXTS).texts) == 2
    assert [("temperature" in r.body, r.status) for r in fake_openai.requests] == [
        (True, 400),
        (False, 200),
    ]
    translator.translate_texts(EN, FR_LOCALE, TEXTS)  # remembered: asked without it at once
    assert "temperature" not in fake_openai.requests[-1].body
    assert len(fake_openai.requests) == 3


def test_temperature_and_seed_are_sent_and_none_omits_them(llm, fake_openai):
    llm().translate_texts(EN, DE, TEXTS)
    assert (fake_openai.requests[0].body["temperature"], fake_openai.requests[0].body["seed"]) == (
        0,
        1,
    )
    llm(TEMPERATURE=None, SEED=None).translate_texts(EN, DE, TEXTS)
    assert not {"temperature", "seed"} & set(fake_openai.requests[1].body)


def test_azure_style_headers_and_query_reach_the_server(llm, fake_openai):
    translator = llm(
        BASE_URL=f"{fake_openai.url}/openai/deployments/translator",
        DEFAULT_QUERY={"api-version": "2024-10-21"},
        DEFAULT_HEADERS={"api-key": "azure-key"},
    )
    translator.translate_texts(EN, DE, TEXTS)
    request = fake_openai.requests[0]
    assert request.path == "/openai/deployments/translator/chat/completions"
    assert request.query == {"api-version": "2024-10-21"}
    assert request.headers["api-key"] == "azure-key"


FR_LOCALE = type(DE)(language_code="fr")
