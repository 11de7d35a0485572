"""Benchmark 11: full requests. Texts go to the translator in requests as full as it allows,
across objects and tree levels, however the workers' claims interleave.

* A DeepL-shaped translator (at most 50 texts a request) on a site of the bakery's size (about
  250 distinct strings per locale: 60 pages of the demo site into 3 locales, one worker):
  requests per locale against ⌈strings / 50⌉ + 1.
* The language-model translator (the real ``LLMTranslator`` against the tests' fake
  OpenAI-compatible server) on 10 and 30 pages of the demo site into fr and de, with two real
  ``db_worker`` processes: texts per request (target ≥ 20) and prompt tokens per translated
  character (target ≤ 0.8).

The baseline is the same engine with claims that do not grow (``MAX_UNITS_PER_CLAIM`` equal to
``UNITS_PER_CLAIM``): what a claim of a few objects sends on its own, on other pages of the site
(translation memory would serve the same ones).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.test import override_settings

from .billing import characters, floor, tally_of
from .harness import (
    Config,
    Result,
    bulk_translate,
    check_succeeded,
    content_pages,
    pages_scope,
    start_bulk_run,
)
from .translators import TEXTS_PER_REQUEST
from .workers import wait_for_idle_queue, wait_for_run, worker_processes

SITE_PAGES = 60
LLM_PAGES = (10, 30)
MIN_TEXTS_PER_REQUEST = 20
MAX_PROMPT_TOKENS_PER_CHARACTER = 0.8


def run(config: Config) -> list[Result]:
    return [*deepl_shaped(config), *language_model(config)]


def deepl_shaped(config: Config) -> list[Result]:
    locales = config.targets[:3]
    pages = content_pages(2 * scaled(SITE_PAGES))
    ours_pages, their_pages = pages[0::2], pages[1::2]
    ours_floor, their_floor = floor(ours_pages, locales), floor(their_pages, locales)
    ours = tally_of(lambda: bulk_translate(ours_pages, locales))
    with claims_that_do_not_grow():
        theirs = tally_of(lambda: bulk_translate(their_pages, locales))
    ours_worst, ours_notes = worst_locale(ours.requests, ours_floor)
    their_worst, _ = worst_locale(theirs.requests, their_floor)
    return [
        Result(
            "11 full requests, DeepL-shaped",
            "requests / (ceil(strings / 50) + 1), worst locale",
            round(ours_worst, 2),
            round(their_worst, 2),
            "ours ≤ 1.00",
            ours_worst <= 1.0,
            f"{len(ours_pages)} pages x {len(locales)} locales, one worker: {ours_notes}",
        )
    ]


def scaled(pages: int) -> int:
    """``pages``, or as many as a small benchmark site can give every part of this benchmark
    (it translates disjoint pages: 2 x 60 + 2 x 10 + 2 x 30 at full size)."""
    available = len(content_pages())
    return max(1, min(pages, available * pages // 200))


def worst_locale(requests: dict[str, int], strings: dict[str, set[str]]) -> tuple[float, str]:
    ratios, notes = [], []
    for code in sorted(strings):
        bound = math.ceil(len(strings[code]) / TEXTS_PER_REQUEST) + 1
        ratios.append(requests.get(code, 0) / bound)
        notes.append(f"{code} {requests.get(code, 0)} requests for {len(strings[code])} strings")
    return max(ratios), "; ".join(notes)


def language_model(config: Config) -> list[Result]:
    from .token_spend import llm_on_fake_server

    results = []
    offset = 2 * scaled(SITE_PAGES)  # pages the DeepL-shaped part did not translate
    for size in map(scaled, LLM_PAGES):
        pages = content_pages(size, offset=offset)
        baseline_pages = content_pages(size, offset=offset + size)
        offset += 2 * size
        with llm_on_fake_server() as translator:
            ours = two_worker_run(pages, translator, config.targets[:2])
            theirs = two_worker_run(baseline_pages, translator, config.targets[:2], grow=False)
        results += [
            Result(
                f"11 full requests, LLM {size} pages",
                "texts per request (two workers)",
                ours["texts_per_request"],
                theirs["texts_per_request"],
                f"ours ≥ {MIN_TEXTS_PER_REQUEST}",
                ours["texts_per_request"] >= MIN_TEXTS_PER_REQUEST,
                ours["notes"],
            ),
            Result(
                f"11 full requests, LLM {size} pages",
                "prompt tokens per translated character (two workers)",
                ours["prompt_per_character"],
                theirs["prompt_per_character"],
                f"ours ≤ {MAX_PROMPT_TOKENS_PER_CHARACTER}",
                ours["prompt_per_character"] <= MAX_PROMPT_TOKENS_PER_CHARACTER,
                f"baseline: {theirs['notes']}",
            ),
        ]
    return results


def two_worker_run(
    pages: list[Any], translator: dict[str, Any], locales: list[str], grow: bool = True
) -> dict:
    """A run of ``pages`` into ``locales``, processed by two real ``db_worker`` processes."""
    from wagtail_bulk_translate.engine.ledger import spend
    from wagtail_bulk_translate.models import SentText

    translated = characters(floor(pages, locales))  # before the run translates them
    settings_env = json.dumps({} if grow else not_growing())
    database = connection.settings_dict["NAME"]
    with (
        worker_settings(settings_env),
        translator_setting(translator),
        worker_processes(database, 2, json.dumps(translator)),
    ):
        wait_for_idle_queue()
        run = start_bulk_run(pages_scope(pages), locales)
        wait_for_run(run.pk)
        check_succeeded(run.pk)
    recorded = spend(run)
    if recorded is None:
        raise RuntimeError("The language-model translator reported no spend.")
    texts = SentText.objects.filter(run=run).count()
    return {
        "texts_per_request": round(texts / max(recorded.requests, 1), 1),
        "prompt_per_character": round(recorded.prompt_tokens / max(translated, 1), 3),
        "notes": f"{recorded.requests} requests for {texts} texts, {recorded.prompt_tokens} "
        f"prompt tokens for {translated} characters ({len(pages)} pages x {', '.join(locales)})",
    }


def not_growing() -> dict[str, int]:
    from wagtail_bulk_translate.conf import get_settings

    size = get_settings().UNITS_PER_CLAIM
    return {"UNITS_PER_CLAIM": size, "MAX_UNITS_PER_CLAIM": size}


@contextmanager
def claims_that_do_not_grow() -> Iterator[None]:
    with override_settings(WAGTAIL_BULK_TRANSLATE={**current(), **not_growing()}):
        yield


@contextmanager
def translator_setting(translator: dict[str, Any]) -> Iterator[None]:
    with override_settings(WAGTAIL_BULK_TRANSLATE={**current(), "TRANSLATOR": translator}):
        yield


@contextmanager
def worker_settings(value: str) -> Iterator[None]:
    """Plugin settings of the worker processes started in the block (benchmarks/settings.py)."""
    before = os.environ.get("BENCH_WBT_SETTINGS")
    os.environ["BENCH_WBT_SETTINGS"] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("BENCH_WBT_SETTINGS", None)
        else:
            os.environ["BENCH_WBT_SETTINGS"] = before


def current() -> dict[str, Any]:
    from django.conf import settings

    return dict(settings.WAGTAIL_BULK_TRANSLATE)
