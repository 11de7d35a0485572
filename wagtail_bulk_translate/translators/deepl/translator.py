"""DeepL machine translator on the official ``deepl`` client.

Usable by bulk translation runs and as wagtail-localize's ``WAGTAILLOCALIZE_MACHINE_TRANSLATOR``
(the editor's "Machine translate" button)::

    WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {
        "CLASS": "wagtail_bulk_translate.translators.deepl.DeepLTranslator",
        "OPTIONS": {
            "AUTH_KEY": "...",  # default: the DEEPL_AUTH_KEY environment variable
            "FORMALITY": {"de": "prefer_less", "fr": "prefer_more"},
            "GLOSSARIES": {"en:de": "<glossary id>"},
            "CONTEXT": "Website of ACME, a maker of garden tools.",
        },
    }}

Options (all optional except the key):

``AUTH_KEY``
    DeepL API key, falling back to the ``DEEPL_AUTH_KEY`` environment variable. Never stored on
    runs (its name contains KEY), never logged. Free-plan keys end in ``:fx`` and the client
    then talks to api-free.deepl.com.
``SERVER_URL``
    Override the API server (a local fake in tests). An outgoing HTTP proxy is taken from the
    ``HTTPS_PROXY`` environment variable, never from an option (options are stored on runs).
``FORMALITY``
    ``{locale code: "more" | "less" | "prefer_more" | "prefer_less" | "default"}``. Keys are
    Wagtail locale codes (``"pt-br"``) or languages (``"de"`` also covers ``de-at``); ``"*"``
    sets a default. "more"/"less" make DeepL refuse languages without formality; the
    ``prefer_`` forms fall back silently.
``GLOSSARIES``
    ``{"source:target": glossary id}`` with Wagtail locale codes or languages (``"en:de"``).
``CONTEXT``
    Text that guides every translation without being translated or billed.
``MODEL_TYPE``
    "quality_optimized", "prefer_quality_optimized" or "latency_optimized".
``TAG_HANDLING`` ("xml") and ``IGNORE_TAGS`` (``["code"]``)
    How DeepL reads wagtail-localize's inline markup (``<b>``, ``<a id="a1">``, ``<br/>``);
    text inside ignored tags is left untranslated.
``TIMEOUT``
    Seconds one HTTP request may take (30).
``RETRIES`` and ``RETRY_BACKOFF_SECONDS``
    Network retries of one request on 429, 5xx, timeouts and dropped connections (3), the
    first after about ``RETRY_BACKOFF_SECONDS`` (1.0), then 1.6 times longer each. A whole
    ``translate()`` call never outlasts half of the plugin's ``LEASE_SECONDS`` (retries that
    would are not made), so a unit's lease cannot expire while it waits on DeepL.
``MAX_TEXTS_PER_REQUEST`` (50) and ``MAX_REQUEST_BYTES`` (100 000)
    Packing limits; DeepL's own are 50 texts and 128 KiB per request, and the size is measured
    on the encoded JSON body (CJK text and escaped quotes weigh several bytes per character).
``LOCALE_MAP`` and ``DEFAULT_VARIANTS``
    Locale mapping overrides, see :mod:`.deepl_locales` (``{"en": "EN-GB"}`` for British
    English by default).

After each ``translate()`` call the translator exposes ``billed_characters`` (source text →
characters DeepL billed for it) and ``failed_texts`` (source text → (error code, message)) for
texts refused one by one: too large for a request, or whose markup DeepL broke twice. An error
raised part-way through a call carries ``partial_results``, what earlier requests of the call
translated (and DeepL billed) before it. ``usage()`` reports the account's characters used and
limit; ``unsupported_target_locales()`` lists the targets a preflight should refuse.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from json import dumps
from typing import TYPE_CHECKING, Any

import deepl
from bs4 import BeautifulSoup, Tag
from deepl import http_client
from wagtail_localize.machine_translators.base import BaseMachineTranslator
from wagtail_localize.strings import StringValue, lstrip_keep, rstrip_keep

from ...conf import get_settings
from ...errors import (
    ErrorCode,
    QuotaExceededError,
    TransientTranslatorError,
    TranslatorConfigError,
    TranslatorError,
)
from . import locales as deepl_locales

if TYPE_CHECKING:
    from wagtail.models import Locale

logger = logging.getLogger(__name__)

DEEPL_MAX_TEXTS = 50
DEEPL_MAX_BYTES = 128 * 1024
FORMALITIES = ("more", "less", "prefer_more", "prefer_less", "default")
BACKOFF_MULTIPLIER = 1.6
BACKOFF_MAX_SECONDS = 60.0
BACKOFF_JITTER = 0.23
# A claim renews its lease between locales once a third of it has passed, so a translator
# call starts with at least two thirds left; half leaves room for the writes after it.
LEASE_SHARE = 0.5
# Separators and keys the client adds around the texts we measure (show_billed_characters...).
BODY_MARGIN_BYTES = 256


@dataclass(frozen=True)
class DeepLUsage:
    """Characters translated this billing period and the account's limit (None: unlimited)."""

    character_count: int | None
    character_limit: int | None

    @property
    def remaining(self) -> int | None:
        if self.character_limit is None or self.character_count is None:
            return None
        return max(self.character_limit - self.character_count, 0)


class DeepLTranslator(BaseMachineTranslator):
    display_name = "DeepL"

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        # Nothing here may raise or touch the network: runs build the translator for a
        # preflight, and a bad option must stop the run with a clear message, not crash it.
        super().__init__(dict(options or {}))
        self.billed_characters: dict[str, int] = {}
        self.failed_texts: dict[str, tuple[ErrorCode, str]] = {}
        self._client: deepl.Translator | None = None
        self._http: BoundedHttpClient | None = None

    def __repr__(self) -> str:  # never show the options: they hold the key
        return f"<{type(self).__name__} server={self.options.get('SERVER_URL') or 'default'}>"

    # --- wagtail-localize API ----------------------------------------------------------------

    def can_translate(self, source_locale: Locale, target_locale: Locale) -> bool:
        return deepl_locales.can_translate(
            source_locale.language_code, target_locale.language_code, *self._locale_options()
        )

    def translate(
        self, source_locale: Locale, target_locale: Locale, strings: Iterable[StringValue]
    ) -> dict[StringValue, StringValue]:
        """Translate ``strings``; texts refused one by one are left out (see failed_texts).

        Raises QuotaExceededError, TranslatorConfigError, TransientTranslatorError or
        TranslatorError. Such an error carries ``partial_results``: what earlier requests of
        the call translated (and were billed for) before it failed.
        """
        self.billed_characters, self.failed_texts = {}, {}
        strings = list(strings)
        source = deepl_locales.source_code(source_locale.language_code, *self._locale_options())
        target = deepl_locales.target_code(target_locale.language_code, *self._locale_options())
        call = TranslateCall(
            self, source, target, self._request_params(source_locale, target_locale)
        )
        try:
            translated = call.run([s.data for s in strings])
        finally:
            self.billed_characters = call.billed
            self.failed_texts = call.failed
        return {s: StringValue(translated[s.data]) for s in strings if s.data in translated}

    # --- other DeepL calls -------------------------------------------------------------------

    def usage(self) -> DeepLUsage:
        """Characters used and the limit of the current billing period (one API call)."""
        self._start_deadline()
        try:
            character = self.client().get_usage().character
        except deepl.DeepLException as err:
            raise translator_error(err) from err
        if character is None or not character.valid:
            return DeepLUsage(None, None)
        return DeepLUsage(character.count, character.limit)

    def unsupported_target_locales(
        self, source_locale: Locale, target_locales: Iterable[Locale]
    ) -> list[str]:
        """Language codes of the targets DeepL cannot translate into from ``source_locale``."""
        return deepl_locales.unsupported_targets(
            source_locale.language_code,
            [t.language_code for t in target_locales],
            *self._locale_options(),
        )

    # --- configuration -----------------------------------------------------------------------

    def client(self) -> deepl.Translator:
        if self._client is None:
            self._client, self._http = self._build_client()
        return self._client

    def _build_client(self) -> tuple[deepl.Translator, BoundedHttpClient]:
        key = self.options.get("AUTH_KEY") or os.environ.get("DEEPL_AUTH_KEY", "")
        if not key:
            raise TranslatorConfigError(
                "No DeepL authentication key: set the translator's AUTH_KEY option or the "
                "DEEPL_AUTH_KEY environment variable."
            )
        client = deepl.Translator(key, server_url=self.options.get("SERVER_URL") or None)
        http = BoundedHttpClient(
            retries=option_number(self.options, "RETRIES", 3, int),
            timeout=option_number(self.options, "TIMEOUT", 30.0, float),
            backoff=option_number(self.options, "RETRY_BACKOFF_SECONDS", 1.0, float),
        )
        # deepl.Translator has no per-instance retry or timeout settings (they are module
        # globals shared by every client in the process), so it gets its own HTTP client.
        if isinstance(getattr(client, "_client", None), http_client.HttpClient):
            client._client.close()
            client._client = http
        client.set_app_info("wagtail-bulk-translate", "1")
        return client, http

    def _start_deadline(self) -> None:
        self.client()
        lease = get_settings().LEASE_SECONDS
        self._http.deadline = time.monotonic() + lease * LEASE_SHARE

    def _locale_options(self) -> tuple[dict, dict]:
        return self.options.get("LOCALE_MAP") or {}, self.options.get("DEFAULT_VARIANTS") or {}

    def _request_params(self, source_locale: Locale, target_locale: Locale) -> dict[str, Any]:
        src, tgt = source_locale.language_code, target_locale.language_code
        params: dict[str, Any] = {
            "tag_handling": self.options.get("TAG_HANDLING", "xml"),
            "ignore_tags": list(self.options.get("IGNORE_TAGS", ["code"])) or None,
            "formality": self._formality(tgt),
            "glossary": self._glossary(src, tgt),
            "context": self.options.get("CONTEXT") or None,
            "model_type": self.options.get("MODEL_TYPE") or None,
        }
        return {name: value for name, value in params.items() if value is not None}

    def _formality(self, target: str) -> str | None:
        setting = {k.lower(): v for k, v in (self.options.get("FORMALITY") or {}).items()}
        code = deepl_locales.normalize(target)
        value = setting.get(code, setting.get(code.split("-")[0], setting.get("*")))
        if value is not None and value not in FORMALITIES:
            raise TranslatorConfigError(
                f"FORMALITY for {target!r} is {value!r}; use one of {', '.join(FORMALITIES)}."
            )
        return value

    def _glossary(self, source: str, target: str) -> str | None:
        setting = {
            k.lower().replace(" ", ""): v for k, v in (self.options.get("GLOSSARIES") or {}).items()
        }
        src, tgt = deepl_locales.normalize(source), deepl_locales.normalize(target)
        for key in (f"{src}:{tgt}", f"{src.split('-')[0]}:{tgt}", f"{src}:{tgt.split('-')[0]}"):
            if key in setting:
                return setting[key]
        return setting.get(f"{src.split('-')[0]}:{tgt.split('-')[0]}")


class TranslateCall:
    """One translate() call: dedupe, pack into requests, validate markup, retry broken once."""

    def __init__(self, translator: DeepLTranslator, source: str, target: str, params: dict):
        self.translator = translator
        self.source, self.target, self.params = source, target, params
        self.billed: dict[str, int] = {}
        self.failed: dict[str, tuple[ErrorCode, str]] = {}
        self.done: dict[str, str] = {}  # source text → translation
        options = translator.options
        max_texts = option_number(options, "MAX_TEXTS_PER_REQUEST", DEEPL_MAX_TEXTS, int)
        max_bytes = option_number(options, "MAX_REQUEST_BYTES", 100_000, int)
        self.max_texts = min(max(max_texts, 1), DEEPL_MAX_TEXTS)
        self.max_bytes = min(max_bytes, DEEPL_MAX_BYTES)

    def run(self, texts: list[str]) -> dict[str, str]:
        bodies: dict[str, list[str]] = {}  # text without surrounding whitespace → its texts
        for text in dict.fromkeys(texts):
            body = text.strip()
            if body:
                bodies.setdefault(body, []).append(text)
            else:
                self.done[text] = text  # nothing to translate, nothing to pay
        if not bodies:
            return self.done
        self.translator._start_deadline()
        try:
            broken = self.send(bodies, list(bodies))
            if broken:
                logger.info("DeepL broke the markup of %d text(s); retrying them once", len(broken))
                for body, problem in self.send(bodies, list(broken)).items():
                    message = (
                        "DeepL broke the inline markup (links or formatting) of this text twice "
                        f"({problem}): {body[:80]!r}."
                    )
                    for text in bodies[body]:
                        self.failed[text] = (ErrorCode.INVALID_MARKUP, message)
        except TranslatorError as err:
            err.partial_results = {StringValue(t): StringValue(v) for t, v in self.done.items()}
            raise
        return self.done

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
                self.failed[text] = (ErrorCode.TOO_LARGE, message)
        for batch in batches:
            for body, result in zip(batch, self.request(batch), strict=True):
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

    def request(self, batch: list[str]) -> list[deepl.TextResult]:
        try:
            results = self.translator.client().translate_text(
                batch, source_lang=self.source, target_lang=self.target, **self.params
            )
        except deepl.DeepLException as err:
            raise translator_error(err) from err
        if len(results) != len(batch):
            raise TransientTranslatorError(
                f"DeepL answered {len(results)} translations for {len(batch)} texts."
            )
        return results

    def overhead(self) -> int:
        """Encoded size of a request without its texts (upper bound)."""
        params = {**self.params, "source_lang": self.source, "target_lang": self.target}
        return encoded_size(params) + BODY_MARGIN_BYTES


def option_number(options: dict[str, Any], name: str, default, kind):
    value = options.get(name)
    if value is None:
        return default
    try:
        return kind(value)
    except (TypeError, ValueError) as err:
        raise TranslatorConfigError(
            f"The DeepL option {name} must be a number, not {value!r}."
        ) from err


# --- packing and validation --------------------------------------------------------------------


def encoded_size(value: Any) -> int:
    """Bytes ``value`` takes in the client's JSON body.

    requests encodes with json.dumps' default ensure_ascii=True: "é" is 6 bytes ("\\u00e9"),
    an emoji 12, a quote 2 — never fewer bytes than UTF-8, so this bound holds either way.
    """
    return len(dumps(value).encode())


def pack(
    texts: list[str], max_texts: int, max_bytes: int, overhead: int
) -> tuple[list[list[str]], list[str]]:
    """Split texts into requests of ≤ max_texts texts and ≤ max_bytes bytes, in order.

    Returns the batches and the texts too large to fit in a request on their own.
    """
    batches: list[list[str]] = []
    too_large: list[str] = []
    batch: list[str] = []
    size = overhead
    for text in texts:
        cost = encoded_size(text) + 2  # ", " between list items
        if overhead + cost > max_bytes:
            too_large.append(text)
            continue
        if batch and (len(batch) >= max_texts or size + cost > max_bytes):
            batches.append(batch)
            batch, size = [], overhead
        batch.append(text)
        size += cost
    if batch:
        batches.append(batch)
    return batches, too_large


def tag_signature(html: str) -> Counter:
    soup = BeautifulSoup(html, "html.parser")
    return Counter((el.name, el.attrs.get("id")) for el in soup.descendants if isinstance(el, Tag))


def describe_tag(name: str, link_id: str | None) -> str:
    return f'<{name} id="{link_id}">' if link_id else f"<{name}>"


def markup_problem(source: str, translated: str) -> str | None:
    """Why ``translated`` cannot stand for ``source``, or None: every inline tag and link id
    of the source must come back once, and nothing wagtail-localize refuses may be added."""
    try:
        StringValue.from_translated_html(translated)
    except ValueError as err:
        return str(err)
    expected, found = tag_signature(source), tag_signature(translated)
    missing, extra = expected - found, found - expected
    if missing:
        return "missing " + ", ".join(describe_tag(*tag) for tag in sorted(missing, key=str))
    if extra:
        return "unexpected " + ", ".join(describe_tag(*tag) for tag in sorted(extra, key=str))
    return None


def with_whitespace_of(text: str, translated: str) -> str:
    """Put back the whitespace around ``text`` that DeepL was not sent."""
    _, leading = lstrip_keep(text)
    _, trailing = rstrip_keep(text)
    return f"{leading}{translated.strip()}{trailing}"


# --- errors --------------------------------------------------------------------------------------


def translator_error(err: deepl.DeepLException) -> TranslatorError:
    """The plugin's typed error for a DeepL client exception (how the run reacts to it)."""
    status = getattr(err, "http_status_code", None)
    if isinstance(err, deepl.QuotaExceededException) or status == 456:
        return QuotaExceededError("DeepL's character quota for this billing period is used up.")
    if isinstance(err, deepl.AuthorizationException) or status == 403:
        return TranslatorConfigError(
            "DeepL refused the authentication key (HTTP 403). Check AUTH_KEY or DEEPL_AUTH_KEY "
            "and SERVER_URL (free-plan keys end in ':fx')."
        )
    if isinstance(err, deepl.TooManyRequestsException) or status == 429:
        return TransientTranslatorError(
            "DeepL is rate limiting requests (HTTP 429).", ErrorCode.RATE_LIMITED
        )
    if isinstance(err, deepl.ConnectionException):
        return TransientTranslatorError(f"DeepL could not be reached: {err}")
    if status is not None and status >= 500:
        return TransientTranslatorError(f"DeepL had a server error (HTTP {status}): {err}")
    if status == 404:
        # On /v2/translate: a glossary id that does not exist, or a SERVER_URL that is not DeepL.
        return TranslatorConfigError(
            f"DeepL answered 404 ({err}). Check the ids in the GLOSSARIES option and SERVER_URL."
        )
    return TranslatorError(f"DeepL refused the request: {err}")


class BoundedHttpClient(http_client.HttpClient):
    """The deepl client's HTTP layer with per-translator retries, timeout and back-off, and a
    deadline no request or retry sleep goes past."""

    def __init__(self, *, retries: int, timeout: float, backoff: float) -> None:
        # Proxies come from the HTTPS_PROXY environment variable (requests reads it): an
        # option could hold credentials, and options are stored on runs.
        super().__init__()
        self.retries = max(retries, 0)
        self.timeout = timeout
        self.backoff = backoff
        self.deadline: float | None = None

    def remaining(self) -> float:
        return float("inf") if self.deadline is None else self.deadline - time.monotonic()

    def request_with_backoff(self, method, url, data, json, headers, stream=False, **kwargs):
        request = self._prepare_request(method, url, data, json, headers, **kwargs)
        delay = self.backoff
        attempt = 0
        while True:
            timeout = min(self.timeout, self.remaining())
            if timeout <= 0:
                raise deepl.ConnectionException(
                    "DeepL did not answer within this call's time budget (half the lease).",
                    should_retry=True,
                )
            try:
                response, error = self._internal_request(request, stream, timeout=timeout), None
            except deepl.ConnectionException as err:
                response, error = None, err
            retryable = error.should_retry if error else response[0] == 429 or response[0] >= 500
            sleep = delay * (1 + BACKOFF_JITTER * random.uniform(-1, 1))
            if not retryable or attempt >= self.retries or sleep >= self.remaining():
                if error is not None:
                    raise error
                return response
            logger.info(
                "DeepL request failed (%s); retry %d in %.2fs",
                error or response[0],
                attempt + 1,
                sleep,
            )
            time.sleep(sleep)
            attempt += 1
            delay = min(delay * BACKOFF_MULTIPLIER, BACKOFF_MAX_SECONDS)
