"""The edge of the ``deepl`` client: its HTTP layer, and its exceptions as the plugin's errors."""

from __future__ import annotations

import logging
import random
import time
from typing import Any

import deepl
import requests
from deepl import http_client
from urllib3.exceptions import ConnectTimeoutError

from ...errors import (
    AnswerLostError,
    ErrorCode,
    QuotaExceededError,
    TransientTranslatorError,
    TranslatorConfigError,
    TranslatorError,
)

logger = logging.getLogger(__name__)

BACKOFF_MULTIPLIER = 1.6
BACKOFF_MAX_SECONDS = 60.0
BACKOFF_JITTER = 0.23


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
    if isinstance(err, deepl.ConnectionException) and answer_lost(err):
        return AnswerLostError(
            f"DeepL did not answer (a timeout or a dropped connection after the request went "
            f"out; DeepL may have billed it): {err}"
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


def answer_lost(err: deepl.ConnectionException) -> bool:
    """Whether the request went out before the connection failed (a read timeout, a connection
    dropped by the server): DeepL may then have translated and billed it. A connection that
    could not be opened, or a call out of time before sending, sent nothing."""
    cause = err.__cause__
    if cause is None or isinstance(cause, requests.exceptions.ConnectTimeout):
        return False
    reason = cause.args[0] if cause.args else None
    return not isinstance(getattr(reason, "reason", reason), ConnectTimeoutError)


class BoundedHttpClient(http_client.HttpClient):
    """The deepl client's HTTP layer with per-translator retries, timeout and back-off, and a
    deadline no request or retry sleep goes past.

    ``lost_answers`` counts the requests it sent again after their answer was lost (a caller
    compares it before and after a call: those requests may have been billed)."""

    def __init__(self, *, retries: int, timeout: float, backoff: float) -> None:
        # Proxies come from the HTTPS_PROXY environment variable (requests reads it): an
        # option could hold credentials, and options are stored on runs.
        super().__init__()
        self.retries = max(retries, 0)
        self.timeout = timeout
        self.backoff = backoff
        self.deadline: float | None = None
        self.lost_answers = 0

    def remaining(self) -> float:
        return float("inf") if self.deadline is None else self.deadline - time.monotonic()

    def request_with_backoff(
        self,
        method: str,
        url: str,
        data: Any,
        json: Any,
        headers: dict,
        stream: bool = False,
        **kwargs: Any,
    ) -> Any:
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
            status = response[0] if response is not None else None
            retryable = error.should_retry if error else status == 429 or (status or 0) >= 500
            sleep = delay * (1 + BACKOFF_JITTER * random.uniform(-1, 1))
            if not retryable or attempt >= self.retries or sleep >= self.remaining():
                if error is not None:
                    raise error
                return response
            if error is not None and answer_lost(error):
                self.lost_answers += 1
            logger.info(
                "DeepL request failed (%s); retry %d in %.2fs",
                error or status,
                attempt + 1,
                sleep,
            )
            time.sleep(sleep)
            attempt += 1
            delay = min(delay * BACKOFF_MULTIPLIER, BACKOFF_MAX_SECONDS)


def install_http_client(client: deepl.Translator, http: BoundedHttpClient) -> None:
    """Give one deepl.Translator its own HTTP layer.

    The client has no per-instance retries, timeout or back-off (they are module globals shared
    by every client in the process), so its private ``_client`` attribute is replaced. This is
    the only place that touches the client's internals; a test checks the installed version
    still has that attribute, so an upgrade that renames it fails loudly instead of silently
    falling back to the global settings.
    """
    current = getattr(client, "_client", None)
    if not isinstance(current, http_client.HttpClient):
        raise TranslatorConfigError(
            "This version of the deepl client has no replaceable HTTP layer (_client); "
            "wagtail-bulk-translate needs deepl>=1.20."
        )
    current.close()
    client._client = http
