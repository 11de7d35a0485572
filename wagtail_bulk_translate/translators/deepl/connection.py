"""One DeepL account as the translator and its glossary calls share it: the official client
with its own bounded HTTP layer, the deadline of the current call, and the locale mapping.

Kept apart from the translator so the glossary calls (``glossaries.py``) use the same client
without reaching into the translator.
"""

from __future__ import annotations

import os
import time
from typing import Any

import deepl

from ...conf import get_settings
from ...errors import TranslatorConfigError
from ..options import option_number as read_option_number
from .http import BoundedHttpClient, install_http_client

# A call stops retrying once half of LEASE_SECONDS has passed: a bound even if the worker's
# lease keeper cannot reach the database. The system check (longest_call_seconds) makes sure
# the lease is long enough for every retry of one request within it.
LEASE_SHARE = 0.5


class DeepLConnection:
    """The client of one translator's options, built on first use (never in ``__init__``:
    runs build translators for a preflight, and a bad option must not crash that)."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self._client: deepl.Translator | None = None
        self.http: BoundedHttpClient | None = None

    def client(self) -> deepl.Translator:
        if self._client is None:
            self._client, self.http = self._build_client()
        return self._client

    def start_deadline(self) -> None:
        """Start the time budget of one call (its requests and retries)."""
        self.client()
        lease = get_settings().LEASE_SECONDS
        if self.http is not None:
            self.http.deadline = time.monotonic() + lease * LEASE_SHARE

    def locale_options(self) -> tuple[dict, dict]:
        return self.options.get("LOCALE_MAP") or {}, self.options.get("DEFAULT_VARIANTS") or {}

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
        install_http_client(client, http)
        client.set_app_info("wagtail-bulk-translate", "1")
        return client, http


def option_number(options: dict[str, Any], name: str, default: Any, kind: type) -> Any:
    return read_option_number(options, name, default, kind, "The DeepL translator")
