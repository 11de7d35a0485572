"""Checks of one translated text, run after translation: does it need an editor's eye?

Pure functions of the source, the translation and the pair's glossary entries (no database,
no translator): each returns ``Flag`` objects whose message an editor understands (it names the
term, or gives the ratio). ``review_flags()`` runs them all with the configured bounds; an
empty list means nothing looked wrong.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..conf import get_settings
from ..glossary.lookup import GlossaryEntry
from ..glossary.matching import plain_text, term_pattern
from ..models.review_flags import (
    LENGTH_RATIO,
    MISSING_TERM,
    NEVER_TRANSLATE_CHANGED,
    UNCHANGED,
    flag_message,
)

WHITESPACE = re.compile(r"\s+")
# A whitespace-separated token of letters (in any script), inner hyphens and apostrophes
# allowed: URLs, codes and numbers are not words.
WORD = re.compile(r"[^\W\d_]+(?:[-'\u2019][^\W\d_]+)*")
EDGE_PUNCTUATION = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb()[]{}.,;:!?\u00bf\u00a1\u2026"
# Prose has at least this many words; shorter texts (a name, "OK", a code) may rightly stay.
PROSE_WORDS = 3


@dataclass(frozen=True)
class Flag:
    """Why a translation should be reviewed: a stable code, the values its sentence names."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)
    term: str = ""
    ratio: float | None = None

    @property
    def message(self) -> str:
        return flag_message(self.code, self.params)


def missing_terms(source: str, translation: str, entries: Iterable[GlossaryEntry]) -> list[Flag]:
    """Glossary terms of the source whose target term is not in the translation."""
    flags = []
    for entry in entries:
        if entry.never_translate or not entry.occurs_in(source):
            continue
        target = GlossaryEntry(entry.target, entry.target, entry.case_sensitive)
        if not target.occurs_in(translation):
            params = {"term": entry.source, "target": entry.target}
            flags.append(Flag(MISSING_TERM, params, term=entry.source))
    return flags


def changed_never_translate(
    source: str, translation: str, entries: Iterable[GlossaryEntry]
) -> list[Flag]:
    """Never-translate terms of the source that the translation lost or altered.

    Each form the source uses (for a case-insensitive term, "ACME" and "Acme" are two) must be
    in the translation exactly as written, at least as often as in the source.
    """
    flags = []
    plain_translation = plain_text(translation)
    for entry in entries:
        if not entry.never_translate:
            continue
        forms = Counter(
            term_pattern(entry.source, entry.case_sensitive).findall(plain_text(source))
        )
        for form, count in forms.items():
            kept = len(term_pattern(form, True).findall(plain_translation))
            if kept < count:
                params = {"term": form, "kept": kept, "count": count}
                flags.append(Flag(NEVER_TRANSLATE_CHANGED, params, term=form))
    return flags


def normalized(text: str) -> str:
    return WHITESPACE.sub(" ", plain_text(text)).strip()


def is_prose(text: str, kept_terms: Sequence[GlossaryEntry] = ()) -> bool:
    """At least three words of letters, not counting never-translate terms."""
    plain = plain_text(text)
    for entry in kept_terms:
        plain = term_pattern(entry.source, entry.case_sensitive).sub(" ", plain)
    tokens = (token.strip(EDGE_PUNCTUATION) for token in plain.split())
    words = [token for token in tokens if len(token) > 1 and WORD.fullmatch(token)]
    return len(words) >= PROSE_WORDS


def unchanged_prose(
    source: str, translation: str, entries: Iterable[GlossaryEntry] = ()
) -> list[Flag]:
    """Prose that came back exactly as it was sent (the translator echoed it)."""
    kept = [entry for entry in entries if entry.never_translate]
    if normalized(source) != normalized(translation) or not is_prose(source, kept):
        return []
    return [Flag(UNCHANGED)]


def length_ratio(
    source: str,
    translation: str,
    *,
    minimum: float,
    maximum: float,
    min_characters: int,
) -> list[Flag]:
    """A translation much shorter or longer than its source (texts shorter than
    ``min_characters`` are not measured: "Go" → "Los geht's" is fine)."""
    source_length = len(normalized(source))
    if source_length < max(min_characters, 1):
        return []
    ratio = len(normalized(translation)) / source_length
    if minimum <= ratio <= maximum:
        return []
    params = {"ratio": ratio, "minimum": minimum, "maximum": maximum}
    return [Flag(LENGTH_RATIO, params, ratio=round(ratio, 2))]


def review_flags(
    source: str, translation: str, entries: Sequence[GlossaryEntry] = ()
) -> list[Flag]:
    """Every check of one text, with the configured length bounds."""
    conf = get_settings()
    return [
        *missing_terms(source, translation, entries),
        *changed_never_translate(source, translation, entries),
        *unchanged_prose(source, translation, entries),
        *length_ratio(
            source,
            translation,
            minimum=conf.REVIEW_MIN_LENGTH_RATIO,
            maximum=conf.REVIEW_MAX_LENGTH_RATIO,
            min_characters=conf.REVIEW_MIN_CHARACTERS,
        ),
    ]
