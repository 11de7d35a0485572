"""Machine translators for tests: pseudo-localization that records its calls and can fail."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from wagtail.models import Locale
from wagtail_localize.strings import StringValue

from wagtail_bulk_translate.translators.pseudo import PseudoTranslator

RECORDING_TRANSLATOR = "tests.translators.RecordingTranslator"


class RecordingTranslator(PseudoTranslator):
    """Pseudo translator whose calls the test can inspect and whose output it can break.

    State is class-level because the engine builds a fresh translator per claim; the
    ``recording_translator`` fixture resets it around every test.
    """

    calls: ClassVar[list[tuple[str, list[str]]]] = []
    # Return a different output (or raise) for a given source text.
    overrides: ClassVar[dict[str, Callable[[str], str]]] = {}

    def translate(
        self, source_locale: Locale, target_locale: Locale, strings: Iterable[StringValue]
    ) -> dict[StringValue, StringValue]:
        strings = list(strings)
        type(self).calls.append((target_locale.language_code, [s.data for s in strings]))
        result = super().translate(source_locale, target_locale, strings)
        for string in strings:
            override = type(self).overrides.get(string.data)
            if override is not None:
                result[string] = StringValue(override(string.data))
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
    """Pseudo translator for worker processes: every text sent is appended to a log file.

    A text sent is a text billed, so the log shows whether any string was paid for twice.
    """

    def translate(
        self, source_locale: Locale, target_locale: Locale, strings: Iterable[StringValue]
    ) -> dict[StringValue, StringValue]:
        strings = list(strings)
        lines = "".join(json.dumps([target_locale.language_code, s.data]) + "\n" for s in strings)
        with open(self.options["LOG_PATH"], "a", encoding="utf-8") as log:
            log.write(lines)
        return super().translate(source_locale, target_locale, strings)


def read_translator_log(path) -> list[tuple[str, str]]:
    with open(path, encoding="utf-8") as log:
        return [tuple(json.loads(line)) for line in log if line.strip()]
