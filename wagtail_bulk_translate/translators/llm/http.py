"""The edge of the ``openai`` client: the only module that imports it.

One Chat Completions request at a time, through the official client (built from the
translator's options), retried here rather than by the client so an exhausted quota is not
retried and the wait a server asks for (``retry-after``) is honoured within bounds. Every client
exception leaves this module as one of the plugin's errors, or as one of the two signals the
translator acts on: :class:`ContextTooLong` (split the batch) and :class:`UnsupportedParameter`
(send it again without ``temperature`` or ``seed``).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import openai

from ...errors import (
    AnswerLostError,
    ErrorCode,
    QuotaExceededError,
    TransientTranslatorError,
    TranslatorConfigError,
    TranslatorError,
)
from ..secrets import CLIENT_LOGS, credential_values, redact, split_credentials

logger = logging.getLogger(__name__)

BACKOFF_MULTIPLIER = 2.0
BACKOFF_JITTER = 0.2
# A retry-after longer than this is not waited for in the call: the unit backs off instead.
MAX_RETRY_WAIT_SECONDS = 10.0
# The HTTP library's exceptions for a connection that was never opened (nothing was sent).
NOT_SENT = ("ConnectError", "ConnectTimeout")
# Parameters some models refuse (reasoning models take no temperature, some servers no seed).
OPTIONAL_PARAMETERS = ("temperature", "seed")


class ContextTooLong(Exception):
    """The request does not fit the model's context window: send smaller batches."""


class UnsupportedParameter(Exception):
    """The model refuses an optional parameter (``temperature`` or ``seed``)."""

    def __init__(self, parameter: str) -> None:
        super().__init__(parameter)
        self.parameter = parameter


@dataclass(frozen=True)
class ClientOptions:
    base_url: str | None
    api_key: str
    timeout: float
    default_headers: dict[str, str]
    default_query: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """What one request brought back (content None: a refusal or an empty answer)."""

    content: str | None
    finish_reason: str | None
    refusal: str | None
    prompt_tokens: int
    completion_tokens: int


def build_client(options: ClientOptions) -> openai.OpenAI:
    # max_retries=0: retries are made by complete(), which knows which ones are worth it.
    client = openai.OpenAI(
        api_key=options.api_key,
        base_url=options.base_url or None,
        timeout=options.timeout,
        max_retries=0,
        default_headers=options.default_headers or None,
        default_query=options.default_query or None,
    )
    CLIENT_LOGS.hide(client_credentials(client), client_logger_names(client))
    return client


IGNORED = ("openai", "builtins")


def client_logger_names(client: openai.OpenAI) -> list[str]:
    """The loggers that print request URLs: openai's and its HTTP library's (``httpx``)."""
    # openai wraps the library's client class in one of its own: take the library's module.
    modules = [cls.__module__ for cls in type(getattr(client, "_client", None)).__mro__]
    libraries = [m.partition(".")[0] for m in modules if m.partition(".")[0] not in IGNORED]
    return ["openai._base_client", libraries[0] if libraries else "httpx"]


def complete(
    client: openai.OpenAI, params: dict[str, Any], *, retries: int, backoff: float
) -> Answer:
    """Send one Chat Completions request, retrying rate limits, 5xx, timeouts and dropped
    connections ``retries`` times; raises the plugin's errors (see :func:`translator_error`)."""
    delay = backoff
    attempt = 0
    hidden = client_credentials(client)
    while True:
        try:
            return answer_of(client.chat.completions.create(**params))
        except openai.OpenAIError as err:
            error = translator_error(err, hidden)
            wait = retry_wait(err, delay)
            if not getattr(error, "transient", False) or attempt >= retries or wait is None:
                raise error from err
        logger.info("Model request failed (%s); retry %d in %.2fs", error, attempt + 1, wait)
        time.sleep(wait)
        attempt += 1
        delay *= BACKOFF_MULTIPLIER


def went_out(err: openai.APIConnectionError) -> bool:
    """Whether the request was sent before the connection failed (the model may then have
    answered, and been paid): not when the connection could not even be opened. The cause is
    the HTTP library's exception, named the same in every version of it the client uses."""
    return type(err.__cause__).__name__ not in NOT_SENT


def client_credentials(client: openai.OpenAI) -> list[str]:
    """The key, credential headers and query parameters the client sends: hidden from every
    message made of what the server or the connection said (a proxy may echo them)."""
    _public, credentials = split_credentials(
        {"headers": dict(client.default_headers), "query": dict(client.default_query)}
    )
    return credential_values({**credentials, "API_KEY": client.api_key})


def answer_of(completion: Any) -> Answer:
    choice = completion.choices[0] if completion.choices else None
    message = getattr(choice, "message", None)
    usage = getattr(completion, "usage", None)
    return Answer(
        content=getattr(message, "content", None),
        finish_reason=getattr(choice, "finish_reason", None),
        refusal=getattr(message, "refusal", None),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )


def retry_wait(err: openai.OpenAIError, delay: float) -> float | None:
    """Seconds to wait before the next try: the server's retry-after when it gives one (None
    when that is too long to wait in the call), else the back-off with some jitter."""
    response = getattr(err, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    if header:
        try:
            seconds = float(header)
        except ValueError:
            seconds = None
        if seconds is not None:
            return seconds if seconds <= MAX_RETRY_WAIT_SECONDS else None
    return min(delay, MAX_RETRY_WAIT_SECONDS) * (1 + BACKOFF_JITTER * random.uniform(-1, 1))


def error_body(err: openai.OpenAIError) -> dict[str, Any]:
    """The ``error`` object of an API error's JSON body (some servers send it bare)."""
    body = getattr(err, "body", None)
    if not isinstance(body, dict):
        return {}
    nested = body.get("error")
    return nested if isinstance(nested, dict) else body


def error_field(err: openai.OpenAIError, name: str) -> str:
    """``code``, ``param`` or ``type`` of an API error, wherever the server put it."""
    return str(getattr(err, name, None) or error_body(err).get(name) or "")


def translator_error(err: openai.OpenAIError, hidden: Sequence[str] = ()) -> Exception:
    """The plugin's error (or the translator's signal) for a client exception; the ``hidden``
    strings (credentials) are replaced wherever the server's words are quoted."""
    if isinstance(err, openai.APIConnectionError) and not went_out(err):
        return TransientTranslatorError(
            f"The model server could not be reached: {redact(str(err), hidden)}"
        )
    if isinstance(err, openai.APITimeoutError):
        return AnswerLostError("The model did not answer in time (TIMEOUT).")
    if isinstance(err, openai.APIConnectionError):
        return AnswerLostError(
            f"The model server dropped the connection: {redact(str(err), hidden)}"
        )
    if not isinstance(err, openai.APIStatusError):
        return TranslatorError(f"The model client failed: {redact(str(err), hidden)}")
    status, code = err.status_code, error_field(err, "code")
    message = redact(describe(err), hidden)
    if code == "insufficient_quota" or status == 402:
        return QuotaExceededError(
            f"The model provider's quota or credit is used up ({message}). Add credit or raise "
            "the limit, then resume the run."
        )
    if status == 429:
        return TransientTranslatorError(
            f"The model server is rate limiting requests (HTTP 429): {message}",
            ErrorCode.RATE_LIMITED,
        )
    if status in (401, 403):
        return TranslatorConfigError(
            f"The model server refused the API key (HTTP {status}): {message}. Check API_KEY "
            "(or the OPENAI_API_KEY environment variable) and BASE_URL."
        )
    if status == 404:
        return TranslatorConfigError(
            f"The model server answered 404 ({message}). Check MODEL, BASE_URL and, for Azure, "
            "DEFAULT_QUERY's api-version."
        )
    if status >= 500 or status in (408, 409):
        return TransientTranslatorError(f"The model server failed (HTTP {status}): {message}")
    return bad_request(err, message)


def bad_request(err: openai.APIStatusError, message: str) -> Exception:
    code, param = error_field(err, "code"), error_field(err, "param")
    lowered = message.lower()
    if (
        code == "context_length_exceeded"
        or "context length" in lowered
        or "context window" in (lowered)
    ):
        return ContextTooLong(message)
    if param in OPTIONAL_PARAMETERS:
        return UnsupportedParameter(param)
    if param == "response_format" or "response_format" in lowered:
        return TranslatorConfigError(
            f"The model server refused the structured-output format ({message}). Set the "
            'translator\'s RESPONSE_FORMAT option to "json_object" (JSON mode) for servers '
            'without JSON-schema support, or "json_schema" for those without JSON mode.'
        )
    return TranslatorError(
        f"The model server refused the request (HTTP {err.status_code}): {message}"
    )


def describe(err: openai.APIStatusError) -> str:
    return str(error_body(err).get("message") or err.message)
