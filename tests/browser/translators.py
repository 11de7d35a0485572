"""A translator the browser tests can hold: a run stays in flight while the test wants it to."""

from __future__ import annotations

import time
from pathlib import Path

from wagtail.models import Locale

from wagtail_bulk_translate.translators.base import Translations
from wagtail_bulk_translate.translators.pseudo import PseudoTranslator

# Released by the test long before this; the bound only keeps a forgotten hold file from
# wedging a worker forever.
MAX_HOLD_SECONDS = 120


class HoldingTranslator(PseudoTranslator):
    """Pseudo translation that waits while the file ``HOLD_FILE`` exists.

    The "cancel a running run" flow creates the file, starts a run (its first claim then waits
    in the translator, so the run is surely still running when the editor clicks Cancel), and
    removes the file after the click.
    """

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        hold = Path(self.options["HOLD_FILE"])
        deadline = time.monotonic() + MAX_HOLD_SECONDS
        while hold.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        return super().translate_texts(source_locale, target_locale, texts)
