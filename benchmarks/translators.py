"""Translators of the benchmarks: instant and counting, or sleeping like a remote service.

Both pseudo-localize (so validation passes as with a real translator) and bill one character
per source character. Requests are counted the way the DeepL translator packs texts: at most
50 texts per request.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from wagtail.models import Locale

from wagtail_bulk_translate.translators.base import Spend, TextContext, Translations
from wagtail_bulk_translate.translators.pseudo import PseudoTranslator

TEXTS_PER_REQUEST = 50


@dataclass
class Tally:
    """What a translator was sent, per target locale code."""

    characters: dict[str, int] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)
    texts: dict[str, int] = field(default_factory=dict)
    distinct: dict[str, set[str]] = field(default_factory=dict)

    def add(self, locale_code: str, texts: list[str]) -> None:
        self.distinct.setdefault(locale_code, set()).update(texts)
        self.characters[locale_code] = self.characters.get(locale_code, 0) + sum(map(len, texts))
        self.requests[locale_code] = self.requests.get(locale_code, 0) + requests_for(len(texts))
        self.texts[locale_code] = self.texts.get(locale_code, 0) + len(texts)

    def total_characters(self) -> int:
        return sum(self.characters.values())

    def total_requests(self) -> int:
        return sum(self.requests.values())


def requests_for(texts: int) -> int:
    return math.ceil(texts / TEXTS_PER_REQUEST)


class CountingTranslator(PseudoTranslator):
    """Zero-latency pseudo translator that tallies what it is sent (class-level: the engine
    builds a translator per claim, and the baseline calls it through wagtail-localize)."""

    tally: ClassVar[Tally] = Tally()

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        type(self).tally.add(target_locale.language_code, texts)
        result = super().translate_texts(source_locale, target_locale, texts)
        result.billed_characters = {text: len(text) for text in texts}
        return result

    @classmethod
    def reset(cls) -> None:
        cls.tally = Tally()


class SleepingTranslator(PseudoTranslator):
    """Pseudo translator that waits ``SLEEP_SECONDS`` (default 0.2) per request of 50 texts,
    as a remote service's round trip would, without using the CPU."""

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        time.sleep(float(self.options.get("SLEEP_SECONDS", 0.2)) * requests_for(len(texts)))
        return super().translate_texts(source_locale, target_locale, texts)


class TokenBenchTranslator(PseudoTranslator):
    """A stand-in for a language model, for the token benchmark until the real LLMTranslator
    (and its fake OpenAI server) is merged: it reads context and pays by the token the way a
    chat completion does. Each request carries a fixed prompt, then each object's title and
    each item's id and field label around its text; tokens are counted at 4 characters each.
    Requests hold at most ``MAX_ITEMS`` texts and ``MAX_CHARACTERS`` characters of text.
    """

    reads_context = True
    PROMPT_TOKENS = 300  # system prompt, instructions, output schema
    ITEM_TOKENS = 12  # an item's id, keys and quotes, in the request and in the answer

    def request_batches(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> list[list[str]]:
        budget = int(self.options.get("MAX_CHARACTERS", 6000))
        cap = int(self.options.get("MAX_ITEMS", 50))
        batches: list[list[str]] = [[]]
        size = 0
        for text in texts:
            if batches[-1] and (len(batches[-1]) >= cap or size + len(text) > budget):
                batches.append([])
                size = 0
            batches[-1].append(text)
            size += len(text)
        return [batch for batch in batches if batch]

    def translate_texts(  # type: ignore[override]
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> Translations:
        result = super().translate_texts(source_locale, target_locale, texts)
        result.spend = self.spend_of(texts, context or {}, list(result.texts.values()))
        return result

    def estimate_spend(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> Spend | None:
        batches = self.request_batches(source_locale, target_locale, texts, context)
        # The answer is about as long as the source (pseudo output adds brackets).
        return sum((self.spend_of(b, context or {}, b) for b in batches), Spend())

    def spend_of(
        self, texts: list[str], context: Mapping[str, TextContext], answers: list[str]
    ) -> Spend:
        titles = {context[t].object_title for t in texts if t in context}
        labels = [context[t].field for t in texts if t in context]
        prompt = (
            self.PROMPT_TOKENS
            + sum(tokens(t) + self.ITEM_TOKENS for t in texts)
            + sum(map(tokens, titles))
            + sum(map(tokens, labels))
        )
        completion = sum(tokens(a) + self.ITEM_TOKENS for a in answers)
        cost = (prompt * 0.4 + completion * 1.6) / 1_000_000  # a small model's price per token
        return Spend(requests=1, prompt_tokens=prompt, completion_tokens=completion, cost=cost)


def tokens(text: str) -> int:
    return len(text) // 4 + 1
