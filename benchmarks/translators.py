"""Translators of the benchmarks: instant and counting, or sleeping like a remote service.

Both pseudo-localize (so validation passes as with a real translator) and bill one character
per source character. Requests are counted the way the DeepL translator packs texts: at most
50 texts per request.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import ClassVar

from wagtail.models import Locale

from wagtail_bulk_translate.translators.base import Translations
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
