"""Machine translators for tests: pseudo-localization that records its calls and can fail."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from typing import Any, ClassVar

from wagtail.models import Locale

from wagtail_bulk_translate.translators.base import Translations
from wagtail_bulk_translate.translators.pseudo import PseudoTranslator

RECORDING_TRANSLATOR = "tests.translator_doubles.RecordingTranslator"


class RecordingTranslator(PseudoTranslator):
    """Pseudo translator whose calls the test can inspect and whose output it can break.

    State is class-level because the engine builds a fresh translator per claim; the
    ``recording_translator`` fixture resets it around every test.
    """

    calls: ClassVar[list[tuple[str, list[str]]]] = []
    # Return a different output (or raise) for a given source text.
    overrides: ClassVar[dict[str, Callable[[str], str]]] = {}

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        type(self).calls.append((target_locale.language_code, list(texts)))
        result = super().translate_texts(source_locale, target_locale, texts)
        for text in texts:
            override = type(self).overrides.get(text)
            if override is not None:
                result.texts[text] = override(text)
        return result

    def can_translate(self, source_locale: Locale, target_locale: Locale) -> bool:
        unsupported = self.options.get("UNSUPPORTED", ())
        return target_locale.language_code not in unsupported and super().can_translate(
            source_locale, target_locale
        )

    @classmethod
    def reset(cls) -> None:
        cls.calls = []
        cls.overrides = {}

    @classmethod
    def texts_sent(cls, locale_code: str | None = None) -> list[str]:
        return [t for code, texts in cls.calls if locale_code in (None, code) for t in texts]


def translator_setting(**options: Any) -> dict[str, Any]:
    return {"CLASS": RECORDING_TRANSLATOR, "OPTIONS": options}


class LoggingTranslator(PseudoTranslator):
    """Pseudo translator for worker processes: every text sent is appended to a log file, as
    [worker pid, call id, locale code, text] (see tests.e2e.helpers.read_translator_log).

    A text sent is a text billed, so the log shows whether any string was paid for twice, and
    in which call of which worker. Requests are small (``TEXTS_PER_REQUEST``, default 8), so a
    claim's texts go out in several requests, as they would to DeepL on a large site: a kill
    then lands between requests as well as in one.
    """

    def request_batches(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> list[list[str]]:
        size = int(self.options.get("TEXTS_PER_REQUEST", 8))
        return [texts[i : i + size] for i in range(0, len(texts), size)]

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        call = uuid.uuid4().hex
        code = target_locale.language_code
        lines = "".join(json.dumps([os.getpid(), call, code, text]) + "\n" for text in texts)
        with open(self.options["LOG_PATH"], "a", encoding="utf-8") as log:
            log.write(lines)
        return super().translate_texts(source_locale, target_locale, texts)


BILLING_TRANSLATOR = "tests.translator_doubles.BillingTranslator"


class BillingTranslator(RecordingTranslator):
    """RecordingTranslator that bills like a paid provider: one character per character sent,
    whatever it answers (so the test knows exactly what a run must report)."""

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        result = super().translate_texts(source_locale, target_locale, texts)
        result.billed_characters = {text: len(text) for text in texts}
        return result

    @classmethod
    def billed(cls, locale_code: str | None = None) -> int:
        return sum(len(text) for text in cls.texts_sent(locale_code))


def break_links(text: str) -> str:
    """A translation wagtail-localize refuses: its link points to an id the source lacks."""
    return f'[{text}] <a id="a999">broken</a>'
