"""Which machine translations a glossary or house style change made outdated.

A machine translation of a text into a locale is outdated when, after it was made, an entry of
the pair's glossary whose term occurs in the text changed (added, re-translated, removed), or
the locale's house style changed. Only those texts are translated again by a "changed" run, and
translation memory does not serve them; the coverage report says which change it was.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils.translation import gettext as _

from ..models import GlossaryChange
from .matching import occurs


@dataclass(frozen=True)
class RuleChange:
    """One recorded change: a term of the pair, or (``term`` empty) the locale's house style."""

    term: str
    case_sensitive: bool
    changed_at: datetime.datetime

    @property
    def is_style(self) -> bool:
        return not self.term

    def touches(self, text: str) -> bool:
        return self.is_style or occurs(self.term, text, case_sensitive=self.case_sensitive)

    @property
    def reason(self) -> str:
        if self.is_style:
            return _("house style changed")
        return _("glossary term “%(term)s” changed") % {"term": self.term}


@dataclass(frozen=True)
class PairChanges:
    """The recorded changes of one (source locale, target locale) pair."""

    changes: tuple[RuleChange, ...] = field(default=())

    def __bool__(self) -> bool:
        return bool(self.changes)

    def outdating(self, text: str, made_at: datetime.datetime) -> RuleChange | None:
        """The change that outdates a machine translation of ``text`` made at ``made_at``."""
        return next((c for c in self.changes if c.changed_at > made_at and c.touches(text)), None)

    def digest(self, texts: Iterable[str]) -> str:
        """What, of the changes, bears on these texts ("" for none): folded into the
        change-detection hash, so an object whose text did not change is not skipped as
        "unchanged" after a change that touches it."""
        texts = list(texts)
        bearing = [
            [c.term, c.changed_at.isoformat()]
            for c in self.changes
            if any(c.touches(text) for text in texts)
        ]
        return hashlib.sha256(json.dumps(bearing).encode()).hexdigest() if bearing else ""


def pair_changes(source_locale_id: int, target_locale_id: int) -> PairChanges:
    return changes_by_pair(source_locale_id, [target_locale_id])[target_locale_id]


def changes_by_pair(source_locale_id: int, target_locale_ids: list[int]) -> dict[int, PairChanges]:
    """{target locale id: the pair's recorded changes, newest first}, in one query."""
    rows = GlossaryChange.objects.filter(
        Q(source_locale_id=source_locale_id) | Q(source_locale=None, term=""),
        target_locale_id__in=target_locale_ids,
    ).order_by("-changed_at", "term")
    found: dict[int, list[RuleChange]] = {pk: [] for pk in target_locale_ids}
    fields = ("target_locale_id", "term", "case_sensitive", "changed_at")
    for locale_id, term, case, at in rows.values_list(*fields):
        found[locale_id].append(RuleChange(term, case, at))
    return {pk: PairChanges(tuple(changes)) for pk, changes in found.items()}
