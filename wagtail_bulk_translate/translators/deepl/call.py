"""One ``translate()`` call to DeepL: dedupe, pack into requests, validate markup, retry the
texts whose markup broke once, and account for what may have been billed (answers lost after a
request went out, retried by the HTTP layer)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

import deepl

from ...errors import ErrorCode, TransientTranslatorError
from ..base import Refusal, Translations
from .connection import DeepLConnection, option_number
from .http import translator_error
from .packing import (
    DEEPL_MAX_BYTES,
    DEEPL_MAX_TEXTS,
    encoded_size,
    markup_problem,
    pack,
    with_whitespace_of,
)

if TYPE_CHECKING:
    from wagtail.models import Locale

logger = logging.getLogger(__name__)

# Separators and keys the client adds around the texts we measure (show_billed_characters...).
BODY_MARGIN_BYTES = 256


class CallTranslator(Protocol):
    """What a call needs of its translator (``DeepLTranslator`` is one): said here, so this
    module does not import the translator that imports it."""

    options: dict[str, Any]
    connection: DeepLConnection

    def client(self) -> deepl.Translator: ...

    def _start_deadline(self) -> None: ...

    def recreate_glossary(
        self, source_locale: Locale, target_locale: Locale, missing: str
    ) -> str: ...


class TranslateCall:
    """One translate() call: dedupe, pack into requests, validate markup, retry broken once."""

    def __init__(
        self,
        translator: CallTranslator,
        source: str,
        target: str,
        params: dict,
        locales: tuple[Locale, Locale] | None = None,
    ):
        self.translator = translator
        self.source, self.target, self.params = source, target, params
        self.locales = locales  # for a synced glossary DeepL lost (created again once)
        self.glossary_recreated = False
        self.billed: dict[str, int] = {}
        self.failed: dict[str, Refusal] = {}
        self.done: dict[str, str] = {}  # source text → translation
        self.unanswered: dict[str, int] = {}  # source text → requests whose answer was lost
        options = translator.options
        max_texts = option_number(options, "MAX_TEXTS_PER_REQUEST", DEEPL_MAX_TEXTS, int)
        max_bytes = option_number(options, "MAX_REQUEST_BYTES", 100_000, int)
        self.max_texts = min(max(max_texts, 1), DEEPL_MAX_TEXTS)
        self.max_bytes = min(max_bytes, DEEPL_MAX_BYTES)

    def result(self) -> Translations:
        return Translations(
            dict(self.done), dict(self.billed), dict(self.failed), unanswered=dict(self.unanswered)
        )

    def run(self, texts: list[str]) -> None:
        bodies: dict[str, list[str]] = {}  # text without surrounding whitespace → its texts
        for text in dict.fromkeys(texts):
            body = text.strip()
            if body:
                bodies.setdefault(body, []).append(text)
            else:
                self.done[text] = text  # nothing to translate, nothing to pay
        if not bodies:
            return
        self.translator._start_deadline()
        broken = self.send(bodies, list(bodies))
        if broken:
            logger.info("DeepL broke the markup of %d text(s); retrying them once", len(broken))
            for body, problem in self.send(bodies, list(broken)).items():
                message = (
                    "DeepL broke the inline markup (links or formatting) of this text twice "
                    f"({problem}): {body[:80]!r}."
                )
                for text in bodies[body]:
                    self.failed[text] = Refusal(ErrorCode.INVALID_MARKUP, message)

    def send(self, bodies: dict[str, list[str]], todo: list[str]) -> dict[str, str]:
        """Translate ``todo`` in packed requests; returns the bodies whose markup broke."""
        broken: dict[str, str] = {}
        batches, too_large = pack(todo, self.max_texts, self.max_bytes, self.overhead())
        for body in too_large:
            message = (
                f"This text is too large for one DeepL request ({encoded_size(body)} bytes "
                f"encoded, limit {self.max_bytes}); split it into smaller blocks."
            )
            for text in bodies[body]:
                self.failed[text] = Refusal(ErrorCode.TOO_LARGE, message)
        for batch in batches:
            for body, result in zip(batch, self.request(batch, bodies), strict=True):
                first, *others = bodies[body]
                self.billed[first] = self.billed.get(first, 0) + int(result.billed_characters)
                for other in others:
                    self.billed.setdefault(other, 0)
                problem = markup_problem(body, result.text)
                if problem:
                    broken[body] = problem
                    continue
                for text in bodies[body]:
                    self.done[text] = with_whitespace_of(text, result.text)
        return broken

    def request(self, batch: list[str], bodies: dict[str, list[str]]) -> list[deepl.TextResult]:
        """One request; a synced glossary DeepL no longer has is created again, and the
        request sent again with it, once per call."""
        try:
            return self.ask(batch, bodies)
        except deepl.DeepLException as err:
            if not (glossary_not_found(err) and self.recreate_glossary()):
                raise translator_error(err) from err
        try:
            return self.ask(batch, bodies)
        except deepl.DeepLException as err:
            raise translator_error(err) from err

    def ask(self, batch: list[str], bodies: dict[str, list[str]]) -> list[deepl.TextResult]:
        http = self.translator.connection.http
        lost_before = http.lost_answers if http else 0
        try:
            answer = self.translator.client().translate_text(
                batch, source_lang=self.source, target_lang=self.target, **self.params
            )
        finally:
            lost = (http.lost_answers if http else 0) - lost_before
            for body in batch if lost else ():
                first = bodies[body][0]  # the text its billing goes to
                self.unanswered[first] = self.unanswered.get(first, 0) + lost
        results = answer if isinstance(answer, list) else [answer]
        if len(results) != len(batch):
            raise TransientTranslatorError(
                f"DeepL answered {len(results)} translations for {len(batch)} texts."
            )
        return results

    def recreate_glossary(self) -> bool:
        missing = self.params.get("glossary")
        if self.glossary_recreated or self.locales is None or not missing:
            return False
        self.glossary_recreated = True
        replacement = self.translator.recreate_glossary(*self.locales, str(missing))
        if not replacement or replacement == missing:
            return False
        self.params["glossary"] = replacement
        return True

    def overhead(self) -> int:
        """Encoded size of a request without its texts (upper bound)."""
        params = {**self.params, "source_lang": self.source, "target_lang": self.target}
        return encoded_size(params) + BODY_MARGIN_BYTES


def glossary_not_found(err: deepl.DeepLException) -> bool:
    """DeepL's answer to a translation with a glossary id it does not have (404, or 400 on
    some API versions): "Glossary not found"."""
    status = getattr(err, "http_status_code", None)
    text = str(err).lower()
    return status in (400, 404) and "glossary" in text and "not found" in text
