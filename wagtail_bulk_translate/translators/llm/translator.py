"""A translator on a language model, through any server that speaks OpenAI's Chat Completions
API: OpenAI, Azure OpenAI, OpenRouter, Ollama, vLLM, llama.cpp's server, LM Studio.

Needs the ``llm`` extra (``pip install wagtail-bulk-translate[llm]``: the official ``openai``
client). Options (``WAGTAIL_BULK_TRANSLATE["TRANSLATOR"]["OPTIONS"]``, or
``WAGTAILLOCALIZE_MACHINE_TRANSLATOR["OPTIONS"]`` for the editor's "Machine translate" button):

``MODEL`` (required)
    The model or, on Azure, the deployment name.
``BASE_URL``
    The server's API root (``None``: OpenAI), e.g. ``http://localhost:11434/v1`` for Ollama.
``API_KEY``
    Default: the ``OPENAI_API_KEY`` environment variable. Never stored on runs (options whose
    name contains KEY stay in settings). Local servers take any non-empty key.
``TIMEOUT`` (60) and ``MAX_RETRIES`` (2)
    Seconds one request may take; retries of a request on 429 (after its ``retry-after``, up to
    10 s), 5xx, timeouts and dropped connections, the first after ``RETRY_BACKOFF_SECONDS``
    (1.0), then twice as long each.
``DEFAULT_HEADERS`` and ``DEFAULT_QUERY``
    Sent with every request, e.g. ``{"api-version": "2024-10-21"}`` for Azure OpenAI.
``RESPONSE_FORMAT``
    ``"json_schema"`` (default: the server enforces the answer's shape) or ``"json_object"``
    (JSON mode, for servers without JSON-schema support; the shape is checked here).
``TEMPERATURE`` (0) and ``SEED`` (1)
    For repeatable translations; ``None`` omits one. A model that refuses either is asked again
    without it.
``MAX_CHARACTERS_PER_REQUEST`` (8 000) and ``MAX_TEXTS_PER_REQUEST`` (40)
    Packing limits (see :mod:`.packing`).
``MIN_LENGTH_RATIO`` (0.3) and ``MAX_LENGTH_RATIO`` (3.0)
    A translation of 20 or more characters whose length is outside these multiples of its
    source's is refused (``suspicious_output``).
``INSTRUCTIONS``, ``LOCALE_INSTRUCTIONS`` and ``GLOSSARY``
    House style for every language, per target locale (``{"de": "Address the reader with
    du."}``), and terms (see :mod:`.prompt`).
``PRICES``
    ``{model: {"input": price, "output": price}}`` per million tokens, in the plugin's
    ``CURRENCY``; a model missing from it costs 0.
``BATCH`` (False), ``BATCH_WINDOW`` ("24h"), ``BATCH_PRICE_FACTOR`` (0.5) and
``BATCH_ENDPOINT`` ("/v1/chat/completions")
    Send a run's requests through the provider's Batch API (OpenAI, Azure OpenAI): answered
    within the window at that share of the price, the units waiting without a worker (see
    :mod:`wagtail_bulk_translate.engine.provider_batches`). The editor's button and what a
    batch left out use synchronous requests.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import TranslatorConfigError, TranslatorError
from ..base import BulkTranslator, ConfigurationProblem, Spend, TextContext, Translations
from ..options import option_number as read_option_number
from . import answers, packing, prompt
from .batch_api import BatchAPI
from .call import TranslateCall
from .markup import protect

if TYPE_CHECKING:
    from wagtail.models import Locale

    from .http import Answer

API_KEY_VARIABLE = "OPENAI_API_KEY"
# For estimates: ~4 characters per token (OpenAI's rule of thumb for English and other Latin
# scripts), ~4 tokens of framing per message, and translations ~30 % longer than their source.
CHARACTERS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4
EXPANSION = 1.3
# Unknown errors of options are named with this prefix in messages.
WHO = "The language-model translator"


class LLMTranslator(BatchAPI, BulkTranslator):
    display_name = "Language model"
    reads_context = True

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        # Nothing here may raise or touch the network (runs build translators for preflights).
        super().__init__(options)
        self._client: Any = None
        self.refused_parameters: set[str] = set()

    def __repr__(self) -> str:  # never show the options: they hold the key
        return f"<{type(self).__name__} model={self.options.get('MODEL')!r}>"

    # --- the translator contract ------------------------------------------------------------

    def can_translate(self, source_locale: Locale, target_locale: Locale) -> bool:
        return source_locale.language_code.lower() != target_locale.language_code.lower()

    def translate_texts(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> Translations:
        """Translate inline-HTML texts; those refused one by one are in ``refused``; the
        call's tokens and cost in ``spend``. Provider failures raise a TranslatorError whose
        ``partial`` holds what earlier requests of the call translated and cost."""
        call = TranslateCall(
            self, source_locale.language_code, target_locale.language_code, context
        )
        try:
            call.run(texts)
        except TranslatorError as err:
            err.partial = call.result()
            raise
        return call.result()

    def request_batches(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> list[list[str]]:
        """One batch per request, an object's texts together in document order."""
        protected = {text: protect(text.strip()) for text in texts}
        return packing.pack(texts, context, protected, *self.limits())

    def estimate_spend(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> Spend:
        """Tokens and cost of these texts, without a network call.

        The requests are built exactly as they would be sent (same packing, prompt, context and
        glossary), and their characters counted: prompt tokens are the characters of each
        message / 4 plus 4 per message; completion tokens those of the expected answer (the
        JSON of each item's text, 30 % longer once translated) / 4. Four characters per token
        holds for English and other Latin-script languages on OpenAI's tokenizers; other
        scripts (CJK, Cyrillic) take more tokens per character, so expect more there. Retries
        and split batches are not foreseen.
        """
        call = TranslateCall(
            self, source_locale.language_code, target_locale.language_code, context
        )
        call.bodies = {t.strip(): [t] for t in dict.fromkeys(texts) if t.strip()}
        call.protected = {body: protect(body) for body in call.bodies}
        spend = Spend()
        for batch in call.batches(list(call.bodies)):
            ids = {body: str(n) for n, body in enumerate(batch, start=1)}
            sent = sum(len(m["content"]) for m in call.messages(ids))
            expected = [{"id": i, "text": call.protected[b].text} for b, i in ids.items()]
            answer = len(json.dumps({"translations": expected}, ensure_ascii=False)) + sum(
                len(call.protected[b].text) * (EXPANSION - 1) for b in batch
            )
            spend += self.spend_of(
                math.ceil(sent / CHARACTERS_PER_TOKEN) + 2 * TOKENS_PER_MESSAGE,
                math.ceil(answer / CHARACTERS_PER_TOKEN),
            )
        if self.submits_batches:
            spend.cost *= self.batch_price_factor()
        return spend

    def output_signature(self, source_locale: Locale, target_locale: Locale) -> str:
        """A hash of the model, the prompt's version, and the instructions and glossary of the
        options. The admin's glossary and house style are left out: a change there outdates
        only the texts it bears on (glossary/staleness.py), not everything the model wrote."""
        source, target = source_locale.language_code, target_locale.language_code
        shaping = {
            "model": self.options.get("MODEL"),
            "prompt": prompt.PROMPT_VERSION,
            "instructions": prompt.instructions(self.options, target, stored=False),
            "glossary": prompt.load_glossary(
                self.options, source, target, stored=False
            ).as_prompt(),
        }
        return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:32]

    @classmethod
    def configuration_problems(cls, options: dict[str, Any]) -> list[ConfigurationProblem]:
        where = "WAGTAIL_BULK_TRANSLATE['TRANSLATOR']['OPTIONS']"
        problems = []
        if importlib.util.find_spec("openai") is None:
            problems.append(
                ConfigurationProblem(
                    f"{WHO} needs the openai package, which is not installed.",
                    hint="pip install 'wagtail-bulk-translate[llm]'",
                )
            )
        if not options.get("MODEL"):
            problems.append(
                ConfigurationProblem(
                    f"{WHO} has no MODEL.",
                    hint=f"Set {where}['MODEL'], e.g. 'gpt-4o-mini' (on Azure: the deployment).",
                )
            )
        if not (options.get("API_KEY") or os.environ.get(API_KEY_VARIABLE)):
            problems.append(
                ConfigurationProblem(
                    f"{WHO} has no API key.",
                    hint=f"Set the {API_KEY_VARIABLE} environment variable or {where}['API_KEY'] "
                    "(any non-empty value for local servers such as Ollama).",
                )
            )
        if options.get("RESPONSE_FORMAT", "json_schema") not in answers.RESPONSE_FORMATS:
            problems.append(
                ConfigurationProblem(
                    f"{WHO}'s RESPONSE_FORMAT is {options.get('RESPONSE_FORMAT')!r}.",
                    hint='Use "json_schema" or "json_object".',
                )
            )
        return problems

    @classmethod
    def longest_call_seconds(cls, options: dict[str, Any]) -> float | None:
        """One request with its retries: TIMEOUT * (MAX_RETRIES + 1), plus the waits between
        tries. A batch whose answer fails is split, which adds requests (each bounded alike)."""
        from .http import MAX_RETRY_WAIT_SECONDS

        timeout = option_number(options, "TIMEOUT", 60.0, float)
        retries = max(option_number(options, "MAX_RETRIES", 2, int), 0)
        return timeout * (retries + 1) + retries * MAX_RETRY_WAIT_SECONDS

    # --- what calls use ----------------------------------------------------------------------

    def glossary(self, source_code: str, target_code: str) -> prompt.Glossary:
        return prompt.load_glossary(self.options, source_code, target_code)

    def limits(self) -> tuple[int, int]:
        max_characters = option_number(
            self.options, "MAX_CHARACTERS_PER_REQUEST", packing.DEFAULT_MAX_CHARACTERS, int
        )
        max_texts = option_number(
            self.options, "MAX_TEXTS_PER_REQUEST", packing.DEFAULT_MAX_TEXTS, int
        )
        return max(max_characters, 1), max(max_texts, 1)

    def bounds(self) -> answers.Bounds:
        return answers.Bounds(
            option_number(
                self.options, "MIN_LENGTH_RATIO", answers.DEFAULT_MIN_LENGTH_RATIO, float
            ),
            option_number(
                self.options, "MAX_LENGTH_RATIO", answers.DEFAULT_MAX_LENGTH_RATIO, float
            ),
        )

    def spend_of(self, prompt_tokens: int, completion_tokens: int) -> Spend:
        price = (self.options.get("PRICES") or {}).get(self.options.get("MODEL")) or {}
        cost = (
            prompt_tokens * float(price.get("input", 0))
            + completion_tokens * float(price.get("output", 0))
        ) / 1_000_000
        return Spend(1, prompt_tokens, completion_tokens, cost)

    def request(self, messages: list[dict[str, str]]) -> Answer | None:
        """One request (None: it does not fit the model's context window)."""
        from . import http

        params = self.request_params(messages)
        while True:
            try:
                return http.complete(
                    self.client(),
                    {k: v for k, v in params.items() if k not in self.refused_parameters},
                    retries=max(option_number(self.options, "MAX_RETRIES", 2, int), 0),
                    backoff=option_number(self.options, "RETRY_BACKOFF_SECONDS", 1.0, float),
                )
            except http.ContextTooLong:
                return None
            except http.UnsupportedParameter as err:
                if err.parameter in self.refused_parameters or err.parameter not in params:
                    raise TranslatorConfigError(
                        f"The model refuses {err.parameter!r}; set {err.parameter.upper()} to "
                        "None in the translator's options."
                    ) from err
                self.refused_parameters.add(err.parameter)

    def request_params(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        mode = self.options.get("RESPONSE_FORMAT") or "json_schema"
        if mode not in answers.RESPONSE_FORMATS:
            raise TranslatorConfigError(
                f'RESPONSE_FORMAT is {mode!r}: use "json_schema" or "json_object".'
            )
        params: dict[str, Any] = {
            "model": self.model(),
            "messages": messages,
            "response_format": answers.response_format(mode),
        }
        for name, default in (("TEMPERATURE", 0), ("SEED", 1)):
            value = self.options.get(name, default)
            if value is not None:
                params[name.lower()] = value
        return params

    def model(self) -> str:
        model = self.options.get("MODEL")
        if not model:
            raise TranslatorConfigError(f"{WHO} has no MODEL option.")
        return str(model)

    def client(self) -> Any:
        if self._client is None:
            if importlib.util.find_spec("openai") is None:
                raise TranslatorConfigError(
                    f"{WHO} needs the openai package: pip install 'wagtail-bulk-translate[llm]'."
                )
            from .http import ClientOptions, build_client

            key = self.options.get("API_KEY") or os.environ.get(API_KEY_VARIABLE, "")
            if not key:
                raise TranslatorConfigError(
                    f"{WHO} has no API key: set its API_KEY option or {API_KEY_VARIABLE}."
                )
            self._client = build_client(
                ClientOptions(
                    base_url=self.options.get("BASE_URL") or None,
                    api_key=key,
                    timeout=option_number(self.options, "TIMEOUT", 60.0, float),
                    default_headers=dict(self.options.get("DEFAULT_HEADERS") or {}),
                    default_query=dict(self.options.get("DEFAULT_QUERY") or {}),
                )
            )
        return self._client


def option_number(options: Mapping[str, Any], name: str, default: Any, kind: type) -> Any:
    return read_option_number(options, name, default, kind, WHO)
