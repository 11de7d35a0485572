"""What follows a change of the glossary or a house style: the change is recorded per language
pair (what it makes outdated, see :mod:`.staleness`), and DeepL glossaries are synced in the
background."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from wagtail.models import Locale

from .. import schedule
from ..models import DeepLGlossary, GlossaryChange, GlossaryTerm, HouseStyle, SyncStatus
from .lookup import GlossaryEntry, glossary_entries, house_style


def glossary_changed(source_locale_id: int | None = None, *, check_remote: bool = False) -> None:
    """Record which entries of the source locale's pairs (all, if None) changed, mark its
    DeepL glossaries as waiting, and queue a sync once the change is committed (a rolled-back
    import queues nothing). ``check_remote``: the sync also checks that DeepL still has each
    glossary (the admin's "Sync now")."""
    record_term_changes(source_locale_id)
    rows = DeepLGlossary.objects.all()
    if source_locale_id is not None:
        rows = rows.filter(source_locale_id=source_locale_id)
    rows.update(status=SyncStatus.PENDING)
    transaction.on_commit(lambda: schedule.sync_glossaries(check_remote=check_remote))


def record_term_changes(source_locale_id: int | None = None) -> None:
    """Compare every pair's entries with what was last recorded: a new, changed or removed
    entry gets its change time, now (the first time a pair is recorded, e.g. after an upgrade,
    its terms get the time they were last saved: translations made since are not outdated)."""
    sources = set(GlossaryTerm.objects.values_list("source_locale_id", flat=True))
    sources |= set(
        GlossaryChange.objects.exclude(source_locale=None).values_list(
            "source_locale_id", flat=True
        )
    )
    if source_locale_id is not None:
        sources &= {source_locale_id}
    locale_ids = list(Locale.objects.values_list("pk", flat=True))
    for source_id in sources:
        saved_at = dict(
            GlossaryTerm.objects.of_source(source_id).values_list("source_term", "updated_at")
        )
        for target_id in locale_ids:
            if target_id != source_id:
                record_pair(source_id, target_id, glossary_entries(source_id, target_id), saved_at)


def record_pair(
    source_id: int, target_id: int, entries: list[GlossaryEntry], saved_at: dict[str, Any]
) -> None:
    now = timezone.now()
    recorded = {
        row.term: row
        for row in GlossaryChange.objects.filter(
            source_locale_id=source_id, target_locale_id=target_id
        )
    }
    current = {entry.source: entry for entry in entries}
    new, changed = [], []
    for term, entry in current.items():
        row = recorded.get(term)
        if row is None:
            new.append(
                GlossaryChange(
                    source_locale_id=source_id,
                    target_locale_id=target_id,
                    term=term,
                    case_sensitive=entry.case_sensitive,
                    digest=entry_digest(entry),
                    changed_at=now if recorded else saved_at.get(term) or now,
                )
            )
        elif row.digest != entry_digest(entry):
            row.digest, row.case_sensitive, row.changed_at = (
                entry_digest(entry),
                entry.case_sensitive,
                now,
            )
            changed.append(row)
    # In bulk: an import of many terms records them in a few queries per pair.
    GlossaryChange.objects.bulk_create(new)
    GlossaryChange.objects.bulk_update(changed, ["digest", "case_sensitive", "changed_at"])
    gone = [row.pk for term, row in recorded.items() if term not in current and row.digest]
    GlossaryChange.objects.filter(pk__in=gone).update(digest="", changed_at=now)


def entry_digest(entry: GlossaryEntry) -> str:
    said = [entry.target, entry.case_sensitive, entry.never_translate]
    return hashlib.sha256(json.dumps(said).encode()).hexdigest()


def record_style_change(locale_id: int) -> None:
    """A house style whose formality or instructions changed outdates the locale's texts."""
    style = house_style(locale_id)
    digest = (
        hashlib.sha256(json.dumps([style.formality, style.instructions]).encode()).hexdigest()
        if style.formality or style.instructions
        else ""
    )
    row = GlossaryChange.objects.filter(source_locale=None, target_locale_id=locale_id, term="")
    found = row.first()
    if found is None:
        if digest:
            GlossaryChange.objects.create(
                target_locale_id=locale_id, digest=digest, changed_at=timezone.now()
            )
    elif found.digest != digest:
        row.update(digest=digest, changed_at=timezone.now())


@receiver(post_save, sender=HouseStyle, dispatch_uid="wbt_house_style_saved")
@receiver(post_delete, sender=HouseStyle, dispatch_uid="wbt_house_style_deleted")
def house_style_changed(sender: type[HouseStyle], instance: HouseStyle, **kwargs: Any) -> None:
    record_style_change(instance.locale_id)
