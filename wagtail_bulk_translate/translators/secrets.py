"""Credentials in translator options: recognised wherever the settings put them, never stored.

A run stores its translator's public options; the credentials are read from settings each time
a translator is built. They can sit in an option (``API_KEY``, DeepL's ``AUTH_KEY``), in a
header or query parameter of a dict option (Azure's ``DEFAULT_HEADERS {"api-key": …}``, a
``DEFAULT_QUERY {"key": …}``), or in a URL (``https://user:password@host``, ``?token=…``).
What is stored instead is a keyed digest (HMAC with ``SECRET_KEY``), so a changed key can be
reported as "credentials changed" without a value.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from django.utils.crypto import salted_hmac

# Parts of option, header and query parameter names that say the value is a credential.
CREDENTIAL_MARKERS = (
    "key",
    "secret",
    "token",
    "password",
    "passwd",
    "credential",
    "auth",
    "cookie",
    "signature",
    "session",
)
REDACTED = "[credential]"
# Shorter values are not redacted from texts (a key "ollama" is not a secret worth hiding, and
# replacing short words would garble messages).
MIN_REDACTED_LENGTH = 6


def looks_like_credential(name: object) -> bool:
    """Whether an option, header or query parameter of this name holds a credential."""
    normalised = re.sub(r"[^a-z]", "", str(name).lower())
    return any(marker in normalised for marker in CREDENTIAL_MARKERS)


def url_holds_credentials(value: object) -> bool:
    """A URL with a password (``https://user:pw@host``) or a credential query parameter."""
    if not isinstance(value, str) or "://" not in value:
        return False
    try:
        parts = urlsplit(value)
        password = parts.password
    except ValueError:
        return True  # unreadable: keep it out of the database to be safe
    return bool(password) or any(looks_like_credential(k) for k, _v in parse_qsl(parts.query))


def split_credentials(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(public, credentials)``: options safe to store, and what must stay in settings. A dict
    option is split entry by entry (its headers or query parameters), one level deep."""
    public: dict[str, Any] = {}
    credentials: dict[str, Any] = {}
    for name, value in options.items():
        if looks_like_credential(name) or url_holds_credentials(value):
            credentials[name] = value
        elif isinstance(value, Mapping):
            kept = {k: v for k, v in value.items() if not is_credential_entry(k, v)}
            hidden = {k: v for k, v in value.items() if k not in kept}
            public[name] = kept
            if hidden:
                credentials[name] = hidden
        else:
            public[name] = value
    return public, credentials


def is_credential_entry(name: object, value: object) -> bool:
    return looks_like_credential(name) or url_holds_credentials(value)


def merge_credentials(public: Mapping[str, Any], credentials: Mapping[str, Any]) -> dict[str, Any]:
    """The options a translator is built with: stored ones plus today's credentials (entries
    of a split dict option put back into it)."""
    merged = dict(public)
    for name, value in credentials.items():
        stored = merged.get(name)
        if isinstance(value, Mapping) and isinstance(stored, Mapping):
            merged[name] = {**stored, **value}
        else:
            merged[name] = value
    return merged


def credentials_digest(credentials: Mapping[str, Any]) -> str:
    """A keyed digest of the credentials: equal digests, same credentials; never reversible
    (the key is ``SECRET_KEY``)."""
    text = json.dumps(credentials, sort_keys=True, default=str)
    return salted_hmac("wagtail_bulk_translate.credentials", text, algorithm="sha256").hexdigest()


def credential_values(credentials: Mapping[str, Any]) -> list[str]:
    """Every string in the credentials, longest first (what :func:`redact` hides)."""
    found: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, Mapping):
            for item in value.values():
                collect(item)
        elif isinstance(value, str) and len(value) >= MIN_REDACTED_LENGTH:
            found.append(value)
            if "://" in value:
                found.extend(url_secrets(value))

    collect(credentials)
    return sorted(set(found), key=len, reverse=True)


def url_secrets(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return []
    query = [v for k, v in parse_qsl(parts.query) if looks_like_credential(k)]
    return [v for v in [password or "", *query] if len(v) >= MIN_REDACTED_LENGTH]


def redact(text: str, values: Iterable[str]) -> str:
    """``text`` with each of ``values`` replaced by ``[credential]``."""
    for value in values:
        if value and value in text:
            text = text.replace(value, REDACTED)
    return text


class RedactingFilter(logging.Filter):
    """A log filter that hides credentials from the records of a client library's loggers
    (an HTTP client logs each request's URL, query parameters included)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: set[str] = set()

    def hide(self, values: Iterable[str], logger_names: Iterable[str]) -> None:
        self.values.update(values)
        for name in logger_names:
            logger = logging.getLogger(name)
            if self not in logger.filters:
                logger.addFilter(self)

    def filter(self, record: logging.LogRecord) -> bool:
        if self.values:
            message = record.getMessage()
            hidden = redact(message, sorted(self.values, key=len, reverse=True))
            if hidden != message:
                record.msg, record.args = hidden, ()
        return True


CLIENT_LOGS = RedactingFilter()
