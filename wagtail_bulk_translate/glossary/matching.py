"""Where a glossary term occurs in a text: whole words only, with or without case."""

from __future__ import annotations

import re
from functools import lru_cache

# wagtail-localize's inline markup (<b>, <a id="a1">, <br/>): a term never spans or hides in it.
TAG = re.compile(r"<[^<>]*>")


@lru_cache(maxsize=4096)
def term_pattern(term: str, case_sensitive: bool) -> re.Pattern[str]:
    # Lookarounds instead of \b, so terms that begin or end with punctuation ("C++", ".NET")
    # still match as whole words.
    flags = 0 if case_sensitive else re.IGNORECASE
    return re.compile(rf"(?<!\w){re.escape(term.strip())}(?!\w)", flags)


def plain_text(text: str) -> str:
    return TAG.sub(" ", text)


def occurrences(term: str, text: str, *, case_sensitive: bool) -> int:
    """How often ``term`` occurs in ``text`` as a whole word (inline markup ignored)."""
    if not term.strip():
        return 0
    return len(term_pattern(term, case_sensitive).findall(plain_text(text)))


def occurs(term: str, text: str, *, case_sensitive: bool) -> bool:
    return occurrences(term, text, case_sensitive=case_sensitive) > 0
