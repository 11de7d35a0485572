"""Benchmark 9: a translator that pays by the token (a language model).

Translates ``sample`` pages into every target locale with a token-paying translator that reads
context, and reports from the billing ledger: requests per 100 texts sent, prompt tokens per
translated character (the overhead of the prompt, titles, field labels and item keys around
the text) and the preflight estimate's error against what the run recorded (the issue asks
for ±25 %).

The translator measured is ``TRANSLATOR_UNDER_TEST``: the real ``LLMTranslator`` over the wire
to the tests' fake OpenAI-compatible server (``tests/fake_openai.py``, which counts tokens as a
real tokenizer roughly does for English: about four characters each).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.test import override_settings

from .billing import characters, floor
from .harness import (
    Config,
    Result,
    check_succeeded,
    content_pages,
    pages_scope,
    process_in_process,
    start_bulk_run,
)

ESTIMATE_TOLERANCE = 0.25


@contextmanager
def llm_on_fake_server() -> Iterator[dict[str, Any]]:
    """The real LLMTranslator over the wire to the tests' fake OpenAI-compatible server."""
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        yield {
            "CLASS": "wagtail_bulk_translate.translators.llm.LLMTranslator",
            "OPTIONS": {
                "BASE_URL": server.base_url,
                "API_KEY": "bench",
                "MODEL": "bench-model",
                "PRICES": {"bench-model": {"input": 0.15, "output": 0.60}},
            },
        }


TRANSLATOR_UNDER_TEST = llm_on_fake_server


def run(config: Config) -> list[Result]:
    from wagtail_bulk_translate.api import preflight
    from wagtail_bulk_translate.engine.ledger import spend
    from wagtail_bulk_translate.models import SentText

    pages = content_pages(config.sample)
    translated = characters(floor(pages, config.targets))
    with TRANSLATOR_UNDER_TEST() as translator, translator_setting(translator):
        estimate = preflight(pages_scope(pages), "en", config.targets).spend
        run = start_bulk_run(pages_scope(pages), config.targets)
        process_in_process(run.pk)
        check_succeeded(run.pk)
    recorded = spend(run)
    if recorded is None or estimate is None:
        raise RuntimeError("The translator under test reported no spend or no estimate.")
    texts = SentText.objects.filter(run=run).count()
    recorded_tokens = recorded.prompt_tokens + recorded.completion_tokens
    estimated_tokens = estimate.prompt_tokens + estimate.completion_tokens
    error = (estimated_tokens - recorded_tokens) / recorded_tokens
    name = translator["CLASS"].rsplit(".", 1)[-1]
    return [
        Result(
            "9 token requests",
            "requests per 100 texts",
            round(100 * recorded.requests / texts, 2),
            None,
            "",
            None,
            f"{name}: {recorded.requests} requests for {texts} texts sent "
            f"({len(pages)} pages x {len(config.targets)} locales)",
        ),
        Result(
            "9 prompt overhead",
            "prompt tokens per translated character",
            round(recorded.prompt_tokens / translated, 3),
            None,
            "",
            None,
            f"{recorded.prompt_tokens} prompt + {recorded.completion_tokens} completion tokens "
            f"for {translated} characters of text, cost {recorded.cost:.4f}",
        ),
        Result(
            "9 estimate error",
            "preflight tokens / recorded - 1",
            round(error, 3),
            None,
            f"within ±{ESTIMATE_TOLERANCE:.0%}",
            abs(error) <= ESTIMATE_TOLERANCE,
            f"estimated {estimated_tokens} tokens, recorded {recorded_tokens}",
        ),
    ]


@contextmanager
def translator_setting(translator: dict[str, Any]) -> Iterator[None]:
    with override_settings(
        WAGTAIL_BULK_TRANSLATE={**settings.WAGTAIL_BULK_TRANSLATE, "TRANSLATOR": translator}
    ):
        yield
