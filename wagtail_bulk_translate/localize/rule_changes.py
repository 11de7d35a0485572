"""Which target objects a glossary or house style change outdated, as queries (the coverage
report and the sampling of units that need work count them without loading objects).

A term change bears on the source strings its term occurs in (found with a ``LIKE`` prefilter,
then matched as whole words in Python); a house style change on every string of the locale.
A target is outdated by a change when one of its source's strings has a machine translation
into the locale made before the change.
"""

from __future__ import annotations

from django.db.models import Exists, F, OuterRef
from wagtail_localize.models import String, StringTranslation

from ..glossary.staleness import PairChanges, RuleChange


def outdating_changes(
    source_locale_id: int, locale_id: int, changes: PairChanges, key: str = "translation_key"
) -> list[tuple[RuleChange, Exists]]:
    """Per change that outdated some machine translation of the pair: whether it outdated the
    target whose translation key is the outer query's ``key``."""
    found = []
    for change in changes.changes:
        made_before = StringTranslation.objects.filter(
            locale_id=locale_id,
            translation_type=StringTranslation.TRANSLATION_TYPE_MACHINE,
            updated_at__lt=change.changed_at,
        )
        if not change.is_style:
            made_before = made_before.filter(
                translation_of_id__in=touched_strings(source_locale_id, change)
            )
        if not made_before.exists():
            continue
        of_target = made_before.filter(
            translation_of__segments__source__object_id=OuterRef(key),
            translation_of__segments__context_id=F("context_id"),
        )
        found.append((change, Exists(of_target)))
    return found


def touched_strings(source_locale_id: int, change: RuleChange) -> list[int]:
    """The source strings the change's term occurs in."""
    candidates = String.objects.filter(
        locale_id=source_locale_id, data__icontains=change.term.strip()
    ).values_list("pk", "data")
    return [pk for pk, data in candidates if change.touches(data)]
