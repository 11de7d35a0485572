"""What follows a change of the glossary: its DeepL glossaries are synced in the background."""

from __future__ import annotations

from django.db import transaction

from .. import schedule
from ..models import DeepLGlossary, SyncStatus


def glossary_changed(source_locale_id: int | None = None) -> None:
    """Mark the source locale's DeepL glossaries (all, if None) as waiting, and queue a sync
    once the change is committed (a rolled-back import queues nothing)."""
    rows = DeepLGlossary.objects.all()
    if source_locale_id is not None:
        rows = rows.filter(source_locale_id=source_locale_id)
    rows.update(status=SyncStatus.PENDING)
    transaction.on_commit(schedule.sync_glossaries)
