"""Pseudo-localization: a deterministic, offline machine translator for demos and tests.

Text comes back accented, about 30% longer and bracketed, e.g. ``[fr: Ĥéļļó ŵóŕļđ ····]``, so
untranslated strings, clipped layouts and hard-coded text stand out on a translated site, while
wagtail-localize's inline markup (tags, link ids, entities) and interpolation placeholders pass
through byte for byte.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from wagtail_localize.strings import lstrip_keep, rstrip_keep

from .base import BulkTranslator, Translations

if TYPE_CHECKING:
    from wagtail.models import Locale

# One fixed accented look-alike per Latin letter: still readable, obviously "translated", and
# the same input always gives the same output (no randomness, so re-runs change nothing).
ACCENTS = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "áƀçđéƒĝĥíĵķļḿñóṕʠŕšţúṽŵẋýžÁƁÇĐÉƑĜĤÍĴĶĻḾÑÓṔɊŔŠŢÚṼŴẊÝŽ",
)

# Translations often run ~30% longer than English; padding by that much makes layouts that only
# fit the source language break in the demo rather than in production.
EXPANSION = 0.3
PADDING = "·"

# What a translator must hand back verbatim. Tags keep their attributes (wagtail-localize checks
# the <a id="aN"> ids); an entity transformed letter by letter would no longer be an entity;
# placeholders are filled in by code that looks them up by name.
TAG = re.compile(r"<[^<>]*>")
ENTITY = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
PLACEHOLDER = re.compile(
    r"\{\{[^{}]*\}\}"  # {{ var }}
    r"|\{[^{}\s]*\}"  # {name}, {0}, {}
    r"|%(?:\([^)]*\))?[-+#0]*\d*(?:\.\d+)?[sdifrxXeEgGc%]"  # %s, %(name)s, %.2f (no "% d")
)
# One capturing group, so re.split() puts protected pieces at the odd indexes.
PROTECTED = re.compile(f"({TAG.pattern}|{ENTITY.pattern}|{PLACEHOLDER.pattern})")


def accent_text_nodes(html: str) -> str:
    """Accent the text between protected pieces, leaving the pieces themselves untouched."""
    parts = PROTECTED.split(html)
    parts[0::2] = [text.translate(ACCENTS) for text in parts[0::2]]
    return "".join(parts)


def visible_length(html: str) -> int:
    """Characters a reader sees: tags take no room, an entity shows as one character."""
    return len(TAG.sub("", ENTITY.sub("x", html)))


def pseudo_localize(text_html: str, locale_code: str | None = None) -> str:
    """Pseudo-localize an inline-HTML string, optionally tagging it with ``locale_code``."""
    # Keep surrounding whitespace outside the brackets: the string may be part of a sentence.
    body, leading = lstrip_keep(text_html)
    body, trailing = rstrip_keep(body)
    if not body:
        return text_html
    padding = PADDING * max(1, math.ceil(visible_length(body) * EXPANSION))
    prefix = f"{locale_code}: " if locale_code else ""
    return f"{leading}[{prefix}{accent_text_nodes(body)} {padding}]{trailing}"


class PseudoTranslator(BulkTranslator):
    """Machine translator that pseudo-localizes instead of translating (nothing is billed).

    Option ``SHOW_LOCALE`` (default True) prefixes each string with the target language code.
    """

    display_name = "Pseudo-localization"

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        code = target_locale.language_code if self.options.get("SHOW_LOCALE", True) else None
        return Translations({text: pseudo_localize(text, code) for text in texts})

    def can_translate(self, source_locale: Locale, target_locale: Locale) -> bool:
        # Full codes, so en-gb -> en-us can be pseudo-localized too.
        return source_locale.language_code != target_locale.language_code
