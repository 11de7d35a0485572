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
    ``prefer_`` forms fall back silently. A formality set in the admin's house style of a
    locale wins over this option.
``GLOSSARIES``
    ``{"source:target": glossary id}`` with Wagtail locale codes or languages (``"en:de"``).
    Without it, a pair uses the glossary synced from the admin's glossary; with it, the id
    given here wins for its pair.
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
    would are not made); ``manage.py check`` refuses a ``LEASE_SECONDS`` shorter than what a
    call with these timeouts and retries may take (``longest_call_seconds``).
``MAX_TEXTS_PER_REQUEST`` (50) and ``MAX_REQUEST_BYTES`` (100 000)
    Packing limits; DeepL's own are 50 texts and 128 KiB per request, and the size is measured
    on the encoded JSON body (CJK text and escaped quotes weigh several bytes per character).
``LOCALE_MAP`` and ``DEFAULT_VARIANTS``
    Locale mapping overrides, see :mod:`.deepl_locales` (``{"en": "EN-GB"}`` for British
    English by default).

``translate_texts()`` returns the translations with the characters DeepL billed for each text
and the texts refused one by one (too large for a request, or whose markup DeepL broke twice);
an error raised part-way through a call carries ``partial``, what earlier requests of the call
translated (and DeepL billed) before it. ``usage()`` reports the account's characters used and
limit; ``unsupported_target_locales()`` lists the targets a preflight should refuse.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import deepl

from ...conf import get_settings
from ...errors import (
    GlossaryOutOfDateError,
    TranslatorConfigError,
    TranslatorError,
)
from ...glossary.lookup import house_style, synced_glossary_id
from ...glossary.outdated import is_syncing
from ...glossary.sync import recreate_missing
from ..base import BulkTranslator, ConfigurationProblem, Translations, Usage
from ..loading import uses_synced_glossaries
from . import locales as deepl_locales
from .call import TranslateCall
from .connection import DeepLConnection, option_number
from .glossaries import DeepLGlossaries
from .http import BACKOFF_JITTER, BACKOFF_MAX_SECONDS, BACKOFF_MULTIPLIER, translator_error
from .packing import (
    pack,
)

if TYPE_CHECKING:
    from wagtail.models import Locale

logger = logging.getLogger(__name__)

FORMALITIES = ("more", "less", "prefer_more", "prefer_less", "default")
# The request, and the retry of the texts whose markup DeepL broke.
REQUESTS_PER_CALL = 2


class DeepLTranslator(BulkTranslator):
    display_name = "DeepL"

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        # Nothing here may raise or touch the network: runs build the translator for a
        # preflight, and a bad option must stop the run with a clear message, not crash it.
        super().__init__(options)
        self.connection = DeepLConnection(self.options)

    def __repr__(self) -> str:  # never show the options: they hold the key
        return f"<{type(self).__name__} server={self.options.get('SERVER_URL') or 'default'}>"

    # --- the translator contract ------------------------------------------------------------

    def can_translate(self, source_locale: Locale, target_locale: Locale) -> bool:
        return deepl_locales.can_translate(
            source_locale.language_code, target_locale.language_code, *self._locale_options()
        )

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        """Translate ``texts``; texts refused one by one are in ``refused``.

        Raises QuotaExceededError, TranslatorConfigError, TransientTranslatorError or
        TranslatorError. Such an error carries ``partial``: what earlier requests of the call
        translated (and were billed for) before it failed.
        """
        source = deepl_locales.source_code(source_locale.language_code, *self._locale_options())
        target = deepl_locales.target_code(target_locale.language_code, *self._locale_options())
        params = self._request_params(source_locale, target_locale)
        call = TranslateCall(self, source, target, params, (source_locale, target_locale))
        try:
            call.run(texts)
        except TranslatorError as err:
            err.partial = call.result()
            raise
        return call.result()

    @classmethod
    def longest_call_seconds(cls, options: dict[str, Any]) -> float | None:
        """A call is one request plus, at most, the retry of the texts whose markup broke; each
        request may wait ``TIMEOUT`` seconds, ``RETRIES`` more times, with the back-off sleeps
        in between (their longest jitter included)."""
        try:
            retries = max(option_number(options, "RETRIES", 3, int), 0)
            timeout = option_number(options, "TIMEOUT", 30.0, float)
            backoff = option_number(options, "RETRY_BACKOFF_SECONDS", 1.0, float)
        except TranslatorConfigError:
            return None  # reported by the translator's configuration problems
        sleeps = sum(
            min(backoff * BACKOFF_MULTIPLIER**n, BACKOFF_MAX_SECONDS) * (1 + BACKOFF_JITTER)
            for n in range(retries)
        )
        return REQUESTS_PER_CALL * ((retries + 1) * timeout + sleeps)

    def request_batches(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> list[list[str]]:
        """DeepL's own packing, so one batch is one request (plus the retry of texts whose
        markup broke); a text too large for any request is a batch of its own (refused).

        A run (only runs ask for batches) into a pair whose synced glossary waits to sync
        waits for it when OUTDATED_GLOSSARY is "wait": GlossaryOutOfDateError pauses it."""
        self._wait_for_glossary(source_locale, target_locale)
        source = deepl_locales.source_code(source_locale.language_code, *self._locale_options())
        target = deepl_locales.target_code(target_locale.language_code, *self._locale_options())
        call = TranslateCall(
            self, source, target, self._request_params(source_locale, target_locale)
        )
        batches, too_large = pack(texts, call.max_texts, call.max_bytes, call.overhead())
        return batches + [[text] for text in too_large]

    def usage(self) -> Usage:
        """Characters used and the limit of the current billing period (one API call)."""
        self._start_deadline()
        try:
            character = self.client().get_usage().character
        except deepl.DeepLException as err:
            raise translator_error(err) from err
        if character is None or not character.valid:
            return Usage(None, None)
        return Usage(character.count, character.limit)

    @classmethod
    def configuration_problems(cls, options: dict[str, Any]) -> list[ConfigurationProblem]:
        if options.get("AUTH_KEY") or os.environ.get("DEEPL_AUTH_KEY"):
            return []
        return [
            ConfigurationProblem(
                "The DeepL translator has no API key.",
                hint="Set the DEEPL_AUTH_KEY environment variable, or "
                "WAGTAIL_BULK_TRANSLATE['TRANSLATOR']['OPTIONS']['AUTH_KEY'].",
            )
        ]

    # --- other DeepL calls -------------------------------------------------------------------

    def unsupported_target_locales(
        self, source_locale: Locale, target_locales: Iterable[Locale]
    ) -> list[str]:
        """Language codes of the targets DeepL cannot translate into from ``source_locale``."""
        return deepl_locales.unsupported_targets(
            source_locale.language_code,
            [t.language_code for t in target_locales],
            *self._locale_options(),
        )

    def glossaries(self) -> DeepLGlossaries:
        """Create, replace and delete DeepL glossaries (the admin's glossary sync)."""
        return DeepLGlossaries(self.connection)

    # --- configuration -----------------------------------------------------------------------

    def client(self) -> deepl.Translator:
        return self.connection.client()

    def _start_deadline(self) -> None:
        self.connection.start_deadline()

    def _locale_options(self) -> tuple[dict, dict]:
        return self.connection.locale_options()

    def _request_params(self, source_locale: Locale, target_locale: Locale) -> dict[str, Any]:
        src, tgt = source_locale.language_code, target_locale.language_code
        params: dict[str, Any] = {
            "tag_handling": self.options.get("TAG_HANDLING", "xml"),
            "ignore_tags": list(self.options.get("IGNORE_TAGS", ["code"])) or None,
            "formality": self._admin_formality(target_locale) or self._formality(tgt),
            "glossary": self._glossary(src, tgt)
            or self._synced_glossary(source_locale, target_locale),
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

    # The admin's house style and synced glossary apply unless the options name their own.
    # Only saved locales have them (wagtail-localize's tests pass unsaved stand-ins).

    def _admin_formality(self, target_locale: Locale) -> str | None:
        if getattr(target_locale, "pk", None) is None:
            return None
        return house_style(target_locale).formality or None

    def _synced_glossary(self, source_locale: Locale, target_locale: Locale) -> str | None:
        if getattr(source_locale, "pk", None) is None or getattr(target_locale, "pk", None) is None:
            return None
        if not uses_synced_glossaries(self):  # another profile's DeepL account holds them
            return None
        return synced_glossary_id(source_locale, target_locale) or None

    def _wait_for_glossary(self, source_locale: Locale, target_locale: Locale) -> None:
        src, tgt = source_locale.language_code, target_locale.language_code
        if get_settings().OUTDATED_GLOSSARY != "wait" or self._glossary(src, tgt):
            return  # warn instead; or a glossary of the options, not synced from the admin
        if None in (getattr(source_locale, "pk", None), getattr(target_locale, "pk", None)):
            return
        if is_syncing(source_locale.pk, target_locale.pk):
            raise GlossaryOutOfDateError(
                f"The DeepL glossary {src}→{tgt} is waiting to sync its changed terms."
            )

    def recreate_glossary(self, source_locale: Locale, target_locale: Locale, missing: str) -> str:
        """Create again the synced glossary ``missing`` that DeepL no longer has ("" when it is
        not the pair's synced one: a glossary of the options only its owner can fix)."""
        if missing != self._synced_glossary(source_locale, target_locale):
            return ""
        return recreate_missing(self.glossaries(), source_locale, target_locale, missing)

    def _glossary(self, source: str, target: str) -> str | None:
        setting = {
            k.lower().replace(" ", ""): v for k, v in (self.options.get("GLOSSARIES") or {}).items()
        }
        src, tgt = deepl_locales.normalize(source), deepl_locales.normalize(target)
        for key in (f"{src}:{tgt}", f"{src.split('-')[0]}:{tgt}", f"{src}:{tgt.split('-')[0]}"):
            if key in setting:
                return setting[key]
        return setting.get(f"{src.split('-')[0]}:{tgt.split('-')[0]}")
