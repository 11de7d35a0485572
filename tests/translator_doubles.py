"""Machine translators for tests: pseudo-localization that records its calls and can fail."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from wagtail.models import Locale

from wagtail_bulk_translate.errors import QuotaExceededError
from wagtail_bulk_translate.translators.base import Spend, TextContext, Translations
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


TOKEN_TRANSLATOR = "tests.translator_doubles.TokenTranslator"


class TokenTranslator(RecordingTranslator):
    """A translator that reads documents and pays by the token, like a language model: it
    takes ``context=``, reports each call's ``Spend``, estimates spend and signs its output.

    Tokens are counted as a model would see them, roughly: a fixed prompt per request plus
    the texts and their context (``tokens()``, 4 characters a token). Options:
    ``TEXTS_PER_REQUEST`` (default 50), ``SIGNATURE`` (its output signature),
    ``QUOTA_AFTER_CALLS`` (raise the quota error after that many calls; None: never),
    ``PRICE_IN`` / ``PRICE_OUT`` (money per million tokens).
    """

    reads_context = True
    PROMPT_TOKENS = 120  # the system prompt and instructions of every request
    contexts: ClassVar[list[dict[str, TextContext]]] = []
    batch_contexts: ClassVar[list[dict[str, TextContext]]] = []
    spends: ClassVar[list[Spend]] = []

    def request_batches(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> list[list[str]]:
        type(self).batch_contexts.append(dict(context or {}))
        size = int(self.options.get("TEXTS_PER_REQUEST", 50))
        return [texts[i : i + size] for i in range(0, len(texts), size)]

    def translate_texts(  # type: ignore[override]
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> Translations:
        quota_after = self.options.get("QUOTA_AFTER_CALLS")
        if quota_after is not None and len(type(self).calls) >= quota_after:
            raise QuotaExceededError("insufficient_quota: the account's credit is used up.")
        type(self).contexts.append(dict(context or {}))
        result = super().translate_texts(source_locale, target_locale, texts)
        result.spend = self.spend_of(texts, context or {}, list(result.texts.values()))
        type(self).spends.append(result.spend)
        return result

    def estimate_spend(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> Spend | None:
        batches = self.request_batches(source_locale, target_locale, texts, context)
        type(self).batch_contexts.pop()  # an estimate is not a run's request
        # Pseudo output is the source in brackets: about as long as the source.
        return sum(
            (self.spend_of(batch, context or {}, [f"[{t}]" for t in batch]) for batch in batches),
            Spend(),
        )

    def output_signature(self, source_locale: Locale, target_locale: Locale) -> str:
        return str(self.options.get("SIGNATURE", ""))

    def spend_of(
        self, texts: list[str], context: Mapping[str, TextContext], answers: list[str]
    ) -> Spend:
        described = [f"{context[t].object_title} {context[t].field}" for t in texts if t in context]
        prompt = self.PROMPT_TOKENS + tokens(texts) + tokens(described)
        completion = tokens(answers)
        price_in = float(self.options.get("PRICE_IN", 2.0))
        price_out = float(self.options.get("PRICE_OUT", 8.0))
        cost = (prompt * price_in + completion * price_out) / 1_000_000
        return Spend(requests=1, prompt_tokens=prompt, completion_tokens=completion, cost=cost)

    @classmethod
    def spent(cls) -> Spend:
        return sum(cls.spends, Spend())

    @classmethod
    def reset(cls) -> None:
        super().reset()
        cls.contexts = []
        cls.batch_contexts = []
        cls.spends = []


def tokens(texts: list[str]) -> int:
    return sum(len(text) // 4 + 1 for text in texts)
