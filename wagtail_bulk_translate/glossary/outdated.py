"""Language pairs whose DeepL glossary is out of date: its terms changed and DeepL does not have
them yet (the sync waits, retries, or failed). Runs into such a pair translate with the
glossary's previous terms and say so (run page, preflight, command line), or wait for the sync
(the ``OUTDATED_GLOSSARY`` setting); the texts they translate meanwhile are translated again by
the next "changed" run once the glossary is in sync (see :mod:`.sync`)."""

from __future__ import annotations

from collections.abc import Iterable

from ..models import DeepLGlossary, SyncStatus

OUT_OF_DATE = (SyncStatus.PENDING, SyncStatus.FAILED)


def outdated_pairs(source_locale_id: int, target_locale_ids: Iterable[int]) -> list[DeepLGlossary]:
    return list(
        DeepLGlossary.objects.filter(
            source_locale_id=source_locale_id,
            target_locale_id__in=list(target_locale_ids),
            status__in=OUT_OF_DATE,
        )
        .select_related("source_locale", "target_locale")
        .order_by("target_locale__language_code")
    )


def is_syncing(source_locale_id: int, target_locale_id: int) -> bool:
    """Whether the pair's glossary waits to sync (a sync is queued or retrying)."""
    return DeepLGlossary.objects.filter(
        source_locale_id=source_locale_id,
        target_locale_id=target_locale_id,
        status=SyncStatus.PENDING,
    ).exists()


def outdated_warnings(source_locale_id: int, target_locale_ids: Iterable[int]) -> list[str]:
    """One warning per out-of-date pair, in words an editor acts on."""
    return [warning(row) for row in outdated_pairs(source_locale_id, target_locale_ids)]


def warning(row: DeepLGlossary) -> str:
    pair = f"{row.source_locale.language_code}→{row.target_locale.language_code}"
    state = "waits to sync" if row.status == SyncStatus.PENDING else "failed to sync"
    detail = f" ({row.message})" if row.message else ""
    return (
        f"The DeepL glossary {pair} {state}{detail}: texts translated now use its previous "
        'terms, and the next "changed" run translates them again once it is in sync '
        "(Glossary → DeepL glossaries → Sync now)."
    )
