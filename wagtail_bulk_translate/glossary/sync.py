"""Keep each language pair's DeepL glossary in step with the admin's glossary.

Runs in a background task (``tasks.sync_glossaries``, queued by :func:`.changes.glossary_changed`
when terms change). A pair is replaced only when its entries changed (their digest), and its
outcome (synced, failed, unsupported, empty) is stored on its ``DeepLGlossary`` row, which the
admin shows: a failure is never silent. The glossaries go to the DeepL account of the first
translator profile whose class keeps glossaries of its own (a ``glossaries()`` method); a site
with no such profile syncs nothing.

DeepL unavailable (a 503, a 429, a timeout) is not a refusal: the pair stays "waiting to sync"
and the task comes back with a growing delay, ``RETRY_DELAYS`` times, before it records the
failure. "Sync now" (``check_remote``) also asks DeepL whether each synced glossary still
exists, and creates again one deleted in the DeepL account; so does a translation that meets
"glossary not found" (:func:`recreate_missing`). Once DeepL has a pair's new entries, the
changes it had not received move to that time: texts translated meanwhile, with the previous
terms, are outdated then, and the next "changed" run translates exactly them again.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.formats import time_format
from wagtail.models import Locale

from .. import schedule
from ..engine.pauses import resume_if_glossaries_synced
from ..errors import TranslatorError
from ..models import DeepLGlossary, GlossaryChange, GlossaryTerm, SyncStatus
from ..translators.loading import glossary_profile_name
from ..translators.pins import pin_of_profile
from ..translators.profiles import configured_profiles
from .lookup import glossary_entries

logger = logging.getLogger(__name__)

# Seconds before each new try of a sync DeepL could not serve (about 4 hours in all).
RETRY_DELAYS = (30, 60, 120, 300, 600, 1200, 2400, 3600, 3600, 3600)


@dataclass
class SyncReport:
    translator: str = ""
    outcomes: dict[str, str] = field(default_factory=dict)  # "en→de": status
    retry_in: float | None = None  # seconds until the next try of pairs DeepL did not serve

    def as_json(self) -> dict[str, Any]:
        return {"translator": self.translator, "pairs": self.outcomes, "retry_in": self.retry_in}


def sync_deepl_glossaries(attempt: int = 0, check_remote: bool = False) -> SyncReport:
    """Sync every pair with terms, and empty the glossaries of pairs that lost them.

    ``attempt``: how many tries came before (DeepL was unavailable); ``check_remote``: ask
    DeepL whether the glossaries it should have still exist (the admin's "Sync now").
    """
    name = glossary_profile_name()
    if name is None:
        return SyncReport()
    pin = pin_of_profile(configured_profiles()[name])
    report = SyncReport(translator=pin.class_path)
    translator = pin.build()
    glossaries = translator.glossaries()
    retry_at = None
    if attempt < len(RETRY_DELAYS):
        report.retry_in = RETRY_DELAYS[attempt]
        retry_at = schedule.in_seconds(report.retry_in)
    unavailable = False
    for source, target in pairs_to_sync():
        row = sync_pair(glossaries, source, target, check_remote=check_remote, retry_at=retry_at)
        unavailable |= row.status == SyncStatus.PENDING
        report.outcomes[f"{source.language_code}→{target.language_code}"] = row.status
    if unavailable and retry_at is not None:
        schedule.sync_glossaries(attempt + 1, check_remote, when=retry_at)
    else:
        report.retry_in = None
        resume_if_glossaries_synced()
    return report


def pairs_to_sync() -> list[tuple[Locale, Locale]]:
    locales = {locale.pk: locale for locale in Locale.objects.order_by("language_code")}
    sources = set(GlossaryTerm.objects.values_list("source_locale_id", flat=True))
    pairs = {(source, target) for source in sources for target in locales if target != source}
    pairs |= set(DeepLGlossary.objects.values_list("source_locale_id", "target_locale_id"))
    return [(locales[s], locales[t]) for s, t in sorted(pairs) if s in locales and t in locales]


def entries_digest(entries: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(sorted(entries.items())).encode()).hexdigest()


def sync_pair(
    glossaries: Any,
    source: Locale,
    target: Locale,
    *,
    check_remote: bool = False,
    retry_at: datetime | None = None,
) -> DeepLGlossary:
    """Bring one pair's DeepL glossary up to date and record how it went. DeepL unavailable:
    the pair keeps waiting (``retry_at``: when it is tried again; None: no more tries)."""
    row, _created = DeepLGlossary.objects.get_or_create(source_locale=source, target_locale=target)
    entries = {entry.source: entry.target for entry in glossary_entries(source, target)}
    digest = entries_digest(entries)
    try:
        if row.entries_digest == digest and not missing_remotely(glossaries, row, check_remote):
            # Only synced and emptied pairs keep their digest.
            status = SyncStatus.SYNCED if entries else SyncStatus.EMPTY
            return record(row, status, "", digest, len(entries)) if row.status != status else row
        if not entries:
            if row.glossary_id:
                glossaries.delete(row.glossary_id)
            return sent(record(row, SyncStatus.EMPTY, "", digest, 0, glossary_id=""))
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
        if err.transient and retry_at is not None:
            message = f"{err.message} Trying again at {time_format(timezone.localtime(retry_at))}."
            return record(row, SyncStatus.PENDING, message, "", len(entries))
        return record(row, SyncStatus.FAILED, str(err), "", len(entries))
    return sent(record(row, SyncStatus.SYNCED, "", digest, len(entries)))


def missing_remotely(glossaries: Any, row: DeepLGlossary, check: bool) -> bool:
    """Whether the pair's glossary is gone from the DeepL account (asked only if ``check``)."""
    return check and bool(row.glossary_id) and not glossaries.exists(row.glossary_id)


def sent(row: DeepLGlossary) -> DeepLGlossary:
    """DeepL has the pair's entries now: the changes it had not received (made since it last
    got them) take effect now, so what was translated before, with the previous terms, is
    outdated by them (glossary/staleness.py) and a "changed" run translates it again."""
    now = timezone.now()
    pending = GlossaryChange.objects.filter(
        source_locale_id=row.source_locale_id, target_locale_id=row.target_locale_id
    )
    if row.entries_sent_at is not None:
        pending = pending.filter(changed_at__gt=row.entries_sent_at)
    pending.update(changed_at=now)
    row.entries_sent_at = now
    row.save(update_fields=["entries_sent_at"])
    return row


def recreate_missing(glossaries: Any, source: Locale, target: Locale, missing_id: str) -> str:
    """The pair's glossary ``missing_id`` is gone from the DeepL account ("glossary not
    found"): create it again from the current terms; returns the id to use ("" if none).
    Workers that meet it together create one: the others find the id already replaced."""
    row = DeepLGlossary.objects.filter(source_locale=source, target_locale=target).first()
    if row is None or row.glossary_id != missing_id:
        return row.glossary_id if row else ""
    logger.warning("DeepL glossary %s (%s) is gone from DeepL: creating it again", missing_id, row)
    # Its digest no longer says what DeepL has: the sync creates the glossary again.
    DeepLGlossary.objects.filter(pk=row.pk, glossary_id=missing_id).update(entries_digest="")
    return sync_pair(glossaries, source, target).glossary_id


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
