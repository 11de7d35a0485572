"""Writing the checked terms of an import: a few bulk queries, not two per row.

``update_or_create`` per row took 273 s for 50,000 terms; existing terms and translations are
read once per batch instead, then created or updated in bulk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

from django.db.models import Q
from django.utils import timezone

from ..models import GlossaryTerm, GlossaryTranslation

if TYPE_CHECKING:
    from collections.abc import Iterator

    from wagtail.models import Locale

BATCH = 500


@dataclass
class ParsedTerm:
    source_locale: Locale
    term: str
    case_sensitive: bool
    never_translate: bool
    row: int
    translations: dict[Locale, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportSummary:
    terms_created: int
    terms_updated: int
    translations_written: int


def batches(items: list[ParsedTerm]) -> Iterator[list[ParsedTerm]]:
    it = iter(items)
    while batch := list(islice(it, BATCH)):
        yield batch


def write_terms(terms: list[ParsedTerm]) -> ImportSummary:
    """Create or update every term and its translations (call inside a transaction)."""
    created = updated = written = 0
    for batch in batches(terms):
        saved, new = save_terms(batch)
        created += new
        updated += len(batch) - new
        written += save_translations(batch, saved)
    return ImportSummary(created, updated, written)


def save_terms(batch: list[ParsedTerm]) -> tuple[dict[tuple[int, str], GlossaryTerm], int]:
    """The batch's terms by (source locale id, text), and how many were new."""
    by_locale: dict[int, list[str]] = {}
    for parsed in batch:
        by_locale.setdefault(parsed.source_locale.pk, []).append(parsed.term)
    match = Q()
    for locale_id, texts in by_locale.items():
        match |= Q(source_locale_id=locale_id, source_term__in=texts)
    existing = {(t.source_locale_id, t.source_term): t for t in GlossaryTerm.objects.filter(match)}
    now = timezone.now()
    new, changed = [], []
    for parsed in batch:
        term = existing.get((parsed.source_locale.pk, parsed.term))
        if term is None:
            new.append(
                GlossaryTerm(
                    source_locale=parsed.source_locale,
                    source_term=parsed.term,
                    case_sensitive=parsed.case_sensitive,
                    never_translate=parsed.never_translate,
                    updated_at=now,
                )
            )
        elif (term.case_sensitive, term.never_translate) != (
            parsed.case_sensitive,
            parsed.never_translate,
        ):
            # Unchanged terms are left alone: rewriting 50,000 rows is what took minutes.
            term.case_sensitive = parsed.case_sensitive
            term.never_translate = parsed.never_translate
            term.updated_at = now
            changed.append(term)
    GlossaryTerm.objects.bulk_create(new)
    GlossaryTerm.objects.bulk_update(changed, ["case_sensitive", "never_translate", "updated_at"])
    if new and new[0].pk is None:  # backends that do not return ids of bulk-created rows
        existing = {
            (t.source_locale_id, t.source_term): t for t in GlossaryTerm.objects.filter(match)
        }
    else:
        existing.update({(t.source_locale_id, t.source_term): t for t in new})
    return existing, len(new)


def save_translations(batch: list[ParsedTerm], saved: dict[tuple[int, str], GlossaryTerm]) -> int:
    wanted = {
        (saved[(p.source_locale.pk, p.term)].pk, target.pk): text
        for p in batch
        for target, text in p.translations.items()
    }
    term_ids = {term_id for term_id, _locale in wanted}
    existing = {
        (t.term_id, t.target_locale_id): t
        for t in GlossaryTranslation.objects.filter(term_id__in=term_ids)
    }
    new, changed = [], []
    for (term_id, locale_id), text in wanted.items():
        translation = existing.get((term_id, locale_id))
        if translation is None:
            new.append(
                GlossaryTranslation(term_id=term_id, target_locale_id=locale_id, target_term=text)
            )
        elif translation.target_term != text:
            translation.target_term = text
            changed.append(translation)
    GlossaryTranslation.objects.bulk_create(new)
    GlossaryTranslation.objects.bulk_update(changed, ["target_term"])
    return len(wanted)
