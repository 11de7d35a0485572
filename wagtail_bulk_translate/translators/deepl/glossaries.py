"""DeepL glossaries: create, replace and delete them through the official client.

DeepL glossaries cannot be edited in place (v2), so a changed glossary is replaced: the sync
creates the new one first and deletes the old one after, so a translation running meanwhile
always has one. DeepL keys glossaries by base language (``EN`` → ``DE``); each Wagtail language
pair gets its own, so ``pt-br`` and ``pt-pt`` may differ.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

import deepl

from ...errors import TranslatorError
from . import locales as deepl_locales
from .http import translator_error

if TYPE_CHECKING:
    from wagtail.models import Locale

    from .connection import DeepLConnection

logger = logging.getLogger(__name__)
T = TypeVar("T")

# Characters a glossary entry cannot hold (its TSV format); they never belong in a term.
FORBIDDEN = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


class GlossaryError(TranslatorError):
    """DeepL refused a glossary call; the message says why, for the admin's sync screen."""


class GlossaryUnavailable(GlossaryError):
    """DeepL could not serve a glossary call right now (a 5xx such as 503, a 429, a timeout,
    no connection), after the client's own retries: nothing was refused, the sync tries again
    later."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=True)


class DeepLGlossaries:
    """The glossary calls on one DeepL connection (a translator's client, key and locales)."""

    def __init__(self, connection: DeepLConnection) -> None:
        self.connection = connection
        self._pairs: set[tuple[str, str]] | None = None

    def language_pair(self, source: Locale, target: Locale) -> tuple[str, str] | None:
        """DeepL's (source, target) base languages of a pair, or None if DeepL has no
        glossaries for it (or cannot translate it at all)."""
        options = self.connection.locale_options()
        src = deepl_locales.deepl_source(source.language_code, *options)
        tgt = deepl_locales.deepl_target(target.language_code, *options)
        if src is None or tgt is None:
            return None
        pair = (deepl_locales.base_language(src), deepl_locales.base_language(tgt))
        return pair if pair in self.supported_pairs() else None

    def supported_pairs(self) -> set[tuple[str, str]]:
        if self._pairs is None:
            languages = self.call(lambda client: client.get_glossary_languages())
            self._pairs = {(p.source_lang.upper(), p.target_lang.upper()) for p in languages}
        return self._pairs

    def create(self, name: str, pair: tuple[str, str], entries: Mapping[str, str]) -> str:
        """Create a glossary of ``entries`` for DeepL's ``pair``; returns its id."""
        clean = clean_entries(entries)
        info = self.call(lambda client: client.create_glossary(name, pair[0], pair[1], clean))
        return str(info.glossary_id)

    def exists(self, glossary_id: str) -> bool:
        """Whether DeepL still has the glossary (it may have been deleted in its dashboard)."""
        try:
            self.call(lambda client: client.get_glossary(glossary_id))
        except GlossaryError as err:
            if isinstance(err.__cause__, deepl.GlossaryNotFoundException):
                return False
            raise
        return True

    def delete(self, glossary_id: str) -> None:
        """Delete a glossary; one already gone (deleted in DeepL's dashboard) is fine."""
        try:
            self.call(lambda client: client.delete_glossary(glossary_id))
        except GlossaryError as err:
            if not isinstance(err.__cause__, deepl.GlossaryNotFoundException):
                raise
            logger.info("DeepL glossary %s was already deleted", glossary_id)

    def call(self, request: Callable[[deepl.Translator], T]) -> T:
        """One client call within the translator's deadline, its errors as GlossaryError."""
        self.connection.start_deadline()
        try:
            return request(self.connection.client())
        except (deepl.QuotaExceededException, deepl.AuthorizationException) as err:
            raise GlossaryError(str(translator_error(err))) from err
        except deepl.DeepLException as err:
            if is_temporary(err):
                raise GlossaryUnavailable(
                    f"DeepL is unavailable for glossaries right now ({err})."
                ) from err
            raise GlossaryError(f"DeepL refused the glossary: {err}") from err
        except ValueError as err:
            raise GlossaryError(f"DeepL refused the glossary: {err}") from err


def is_temporary(err: deepl.DeepLException) -> bool:
    """A failure that passes (a timeout, no connection, a 429 or 5xx), not a refusal."""
    status = getattr(err, "http_status_code", None) or 0
    return (
        isinstance(err, (deepl.ConnectionException, deepl.TooManyRequestsException))
        or status == 429
        or status >= 500
    )


def clean_entries(entries: Mapping[str, str]) -> dict[str, str]:
    """Entries DeepL accepts: no tabs or line breaks, no empty side, each source term once
    (DeepL refuses a glossary with a duplicate; the first one wins)."""
    clean: dict[str, str] = {}
    for source, target in entries.items():
        source, target = source.translate(FORBIDDEN).strip(), target.translate(FORBIDDEN).strip()
        if source and target and source not in clean:
            clean[source] = target
    return clean
