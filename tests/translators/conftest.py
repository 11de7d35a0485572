"""Fixtures of the translator tests: the language-model translator on the fake server."""

from __future__ import annotations

import types

import pytest

from wagtail_bulk_translate.translators.llm import LLMTranslator

LLM_CLASS = "wagtail_bulk_translate.translators.llm.LLMTranslator"
EN, DE, FR = (types.SimpleNamespace(language_code=c) for c in ("en", "de", "fr"))


def llm_options(fake, **options) -> dict:
    """Options of an LLMTranslator on ``fake``, with back-off short enough for tests."""
    return {
        "BASE_URL": fake.base_url,
        "API_KEY": "sk-test",
        "MODEL": "fake-model",
        "RETRY_BACKOFF_SECONDS": 0.01,
        "TIMEOUT": 5,
        "PRICES": {"fake-model": {"input": 0.5, "output": 2.0}},
        **options,
    }


@pytest.fixture
def llm(fake_openai):
    """``llm(**options)``: an LLMTranslator on the fake server."""

    def _make(**options) -> LLMTranslator:
        return LLMTranslator(llm_options(fake_openai, **options))

    return _make
