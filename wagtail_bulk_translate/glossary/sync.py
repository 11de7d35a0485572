"""Keep each language pair's DeepL glossary in step with the admin's glossary.

Runs in a background task (``tasks.sync_glossaries``, queued by :func:`.changes.glossary_changed`
when terms change). A pair is replaced only when its entries changed (their digest), and its
outcome (synced, failed, unsupported, empty) is stored on its ``DeepLGlossary`` row, which the
admin shows: a failure is never silent. Translators that keep no glossaries of their own (those
without a ``glossaries()`` method) are skipped.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone
from wagtail.models import Locale

from ..errors import TranslatorError
from ..models import DeepLGlossary, GlossaryTerm, SyncStatus
from ..translators.loading import build_translator, pinned_translator
from .lookup import glossary_entries

logger = logging.getLogger(__name__)


@dataclass
class SyncReport:
    translator: str = ""
    outcomes: dict[str, str] = field(default_factory=dict)  # "en→de": status

    def as_json(self) -> dict[str, Any]:
        return {"translator": self.translator, "pairs": self.outcomes}


def sync_deepl_glossaries() -> SyncReport:
    """Sync every pair with terms, and empty the glossaries of pairs that lost them."""
    class_path, options = pinned_translator()
    report = SyncReport(translator=class_path)
    translator = build_translator(class_path, options)
    if not hasattr(translator, "glossaries"):
        return report
    glossaries = translator.glossaries()
    for source, target in pairs_to_sync():
        row = sync_pair(glossaries, source, target)
        report.outcomes[f"{source.language_code}→{target.language_code}"] = row.status
    return report


def pairs_to_sync() -> list[tuple[Locale, Locale]]:
    locales = {locale.pk: locale for locale in Locale.objects.order_by("language_code")}
    sources = set(GlossaryTerm.objects.values_list("source_locale_id", flat=True))
    pairs = {(source, target) for source in sources for target in locales if target != source}
    pairs |= set(DeepLGlossary.objects.values_list("source_locale_id", "target_locale_id"))
    return [(locales[s], locales[t]) for s, t in sorted(pairs) if s in locales and t in locales]


def entries_digest(entries: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(sorted(entries.items())).encode()).hexdigest()


def sync_pair(glossaries: Any, source: Locale, target: Locale) -> DeepLGlossary:
    """Bring one pair's DeepL glossary up to date and record how it went."""
    row, _created = DeepLGlossary.objects.get_or_create(source_locale=source, target_locale=target)
    entries = {entry.source: entry.target for entry in glossary_entries(source, target)}
    digest = entries_digest(entries)
    if row.entries_digest == digest:  # only synced and emptied pairs keep their digest
        status = SyncStatus.SYNCED if entries else SyncStatus.EMPTY
        return record(row, status, "", digest, len(entries)) if row.status != status else row
    try:
        if not entries:
            if row.glossary_id:
                glossaries.delete(row.glossary_id)
            return record(row, SyncStatus.EMPTY, "", digest, 0, glossary_id="")
        pair = glossaries.language_pair(source, target)
        if pair is None:
            message = (
                f"DeepL has no glossaries from {source.get_display_name()} to "
                f"{target.get_display_name()}: its terms are not sent to DeepL (they are "
                "still checked after translation)."
            )
            return record(row, SyncStatus.UNSUPPORTED, message, "", len(entries))
        name = f"wagtail-bulk-translate {source.language_code}→{target.language_code}"
        replace(glossaries, row, glossaries.create(name, pair, entries))
    except TranslatorError as err:
        return record(row, SyncStatus.FAILED, str(err), "", len(entries))
    return record(row, SyncStatus.SYNCED, "", digest, len(entries))


def replace(glossaries: Any, row: DeepLGlossary, new_id: str) -> None:
    """Swap the pair's glossary id for ``new_id``, then delete the glossary it replaced.

    The swap is conditional on the id the sync started from: when two syncs of the pair run
    at once, the one that swaps second deletes the glossary it created instead of leaving it
    behind in the DeepL account.
    """
    old_id = row.glossary_id
    swapped = DeepLGlossary.objects.filter(pk=row.pk, glossary_id=old_id).update(glossary_id=new_id)
    if not swapped:
        glossaries.delete(new_id)
        row.refresh_from_db(fields=["glossary_id"])
        return
    row.glossary_id = new_id
    if old_id:
        try:
            glossaries.delete(old_id)
        except TranslatorError as err:  # the new glossary is in use: a leftover is no failure
            logger.warning("Could not delete the replaced DeepL glossary %s: %s", old_id, err)


def record(
    row: DeepLGlossary,
    status: str,
    message: str,
    digest: str,
    count: int,
    glossary_id: str | None = None,
) -> DeepLGlossary:
    row.status, row.message, row.entries_digest, row.entry_count = status, message, digest, count
    row.synced_at = timezone.now()
    fields = ["status", "message", "entries_digest", "entry_count", "synced_at"]
    if glossary_id is not None:
        row.glossary_id = glossary_id
        fields.append("glossary_id")
    row.save(update_fields=fields)
    return row
