"""Tell non-prose text (e-mails, URLs, numbers, codes...) from prose worth translating.

Plain-text fields on real sites hold coordinates, phone numbers, SKUs and the like. Sent to a
translator they cost money and come back mangled (then fail validation), so runs copy them
unchanged instead.

Decisions:
- When unsure, it is prose. Sending a code to the translator costs a few characters; leaving
  prose untranslated shows on the site.
- Any word is prose, however short: "OK", "Paris", "Read more" are translated (city names and
  interjections do change between languages).
- Markup does not matter: the decision is made on the text content, so
  ``<a id="a1">hello@example.com</a>`` is an e-mail and ``Read <a id="a1">more</a>`` is prose.
- Bare domains ("example.com") are prose: too close to names like "Node.js".
"""

from __future__ import annotations

import html
import re

from django.utils.html import strip_tags

BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
TAG = re.compile(r"<[^<>]*>")

EMAIL = re.compile(r"(?:mailto:)?[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.IGNORECASE)
URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
HEX_COLOUR = re.compile(r"#(?:[0-9a-f]{3}){1,2}", re.IGNORECASE)
# Numbers that read as words and change between languages: "1st", "3rd", "10am".
ORDINAL_OR_TIME = re.compile(r"\d+(?:st|nd|rd|th|am|pm)", re.IGNORECASE)
# Tokens are split on spaces and on the separators of codes, dates and coordinate pairs.
TOKEN_SEPARATORS = re.compile(r"[\s,;:/|()\[\]\-–—]+")  # noqa: RUF001 (en and em dashes)

# A short all-caps token next to a code is its label ("ISBN 978-...", "EUR 1,000", "48° N").
MAX_LABEL_LETTERS = 4


def text_content(text: str) -> str:
    """The text a reader sees: tags dropped (line breaks become spaces), entities decoded."""
    return html.unescape(TAG.sub("", BR.sub(" ", text))).strip()


def token_kind(token: str) -> str:
    """'code' (has digits), 'label' (short caps or one letter), 'symbol' or 'word'."""
    letters = [c for c in token if c.isalpha()]
    if any(c.isdigit() for c in token) and not ORDINAL_OR_TIME.fullmatch(token):
        return "code"
    if not letters:
        return "symbol"
    if len(letters) == 1 or (len(letters) <= MAX_LABEL_LETTERS and token.isupper()):
        return "label"
    return "word"


def is_code(text: str) -> bool:
    """Identifiers, amounts and coordinates: codes, at most one label each, and no words."""
    kinds = [token_kind(token) for token in TOKEN_SEPARATORS.split(text) if token]
    codes, labels = kinds.count("code"), kinds.count("label")
    return "word" not in kinds and codes > 0 and labels <= codes


def is_non_prose(text: str) -> bool:
    """True for text to copy unchanged rather than translate (see the module docstring)."""
    content = text_content(text)
    if not any(c.isalpha() for c in content):
        # Empty, numbers, amounts, dates, phone numbers, decimal coordinates, punctuation.
        return True
    if EMAIL.fullmatch(content) or URL.fullmatch(content) or HEX_COLOUR.fullmatch(content):
        return True
    return is_code(content)


def plain_text(markup: str) -> str:
    """Inline HTML as text: tags dropped, entities decoded (what DeepL bills, what slugs use)."""
    return html.unescape(strip_tags(markup))
