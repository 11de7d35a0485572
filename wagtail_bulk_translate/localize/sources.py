"""wagtail-localize's TranslationSource and Translation records of the objects a run handles."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import models
from wagtail_localize.models import (
    SourceDeletedError,
    StringSegment,
    Translation,
    TranslationLog,
    TranslationSource,
)

from ..errors import ErrorCode, UnitError
from .extraction import update_or_create_source

__all__ = [
    "SourceDeletedError",
    "TranslationSource",
    "check_complete",
    "delete_translation_record",
    "forget_logged_writes_after",
    "last_logged_revision",
    "pipeline_records",
    "translations_by_locale",
    "update_source",
]


def update_source(instance: models.Model) -> TranslationSource:
    """Extract the object into its TranslationSource (created or refreshed)."""
    source, _created = update_or_create_source(instance)
    return source


def translations_by_locale(
    source: TranslationSource | None, locale_ids: list[int]
) -> dict[int, Translation]:
    if source is None:
        return {}
    return {
        t.target_locale_id: t
        for t in Translation.objects.filter(source=source, target_locale_id__in=locale_ids)
    }


def last_logged_revision(source: TranslationSource | None, locale_id: int) -> int | None:
    """The revision wagtail-localize last wrote into the locale (None: it never did)."""
    return (
        TranslationLog.objects.filter(source=source, locale_id=locale_id)
        .order_by("-created_at", "-pk")
        .values_list("revision_id", flat=True)
        .first()
    )


@dataclass(frozen=True)
class PipelineRecord:
    """What wagtail-localize knows of an object's translation into one locale."""

    enabled: bool  # False: its synced translation was stopped (the target is edited by hand)
    last_logged_revision: int | None  # the target revision it last wrote (None: never)


def pipeline_records(
    object_key: Any, source_locale_id: int, locale_ids: list[int]
) -> dict[int, PipelineRecord]:
    """{locale id: record} of the object's translations from ``source_locale_id``, in two
    queries; locales it never translated into are absent (a target there was made by hand or
    copied). The same facts the engine's manual-edit guard reads (engine.plan.guard_target)."""
    source = {"source__object_id": object_key, "source__locale_id": source_locale_id}
    enabled = dict(
        Translation.objects.filter(**source, target_locale_id__in=locale_ids).values_list(
            "target_locale_id", "enabled"
        )
    )
    logged: dict[int, int | None] = {}
    logs = TranslationLog.objects.filter(**source, locale_id__in=locale_ids)
    for locale_id, revision_id in logs.order_by("created_at", "pk").values_list(
        "locale_id", "revision_id"
    ):
        logged[locale_id] = revision_id  # ascending: the last one wins
    return {
        locale_id: PipelineRecord(is_enabled, logged.get(locale_id))
        for locale_id, is_enabled in enabled.items()
    }


def check_complete(source: TranslationSource, locale: Any, held: Iterable[int] = ()) -> None:
    """Refuse to write a target while any string of the source lacks a valid translation, but
    for the ``held`` strings (ids), left in the source language on purpose."""
    missing = (
        StringSegment.objects.filter(source=source)
        .exclude(string_id__in=list(held))
        .annotate_translation(locale)
        .filter(translation__isnull=True)
        .count()
    )
    if missing:
        raise UnitError(
            ErrorCode.TRANSLATOR_ERROR,
            f"{missing} string(s) have no valid translation; the target was not written.",
        )


def delete_translation_record(object_key: Any, locale_id: int) -> None:
    """Forget that the object is translated into the locale (its target was deleted)."""
    Translation.objects.filter(source__object_id=object_key, target_locale_id=locale_id).delete()


def forget_logged_writes_after(object_key: Any, locale_id: int, revision_id: int | None) -> None:
    """Forget wagtail-localize's log of writes newer than ``revision_id`` (a revert undid them).

    The log's latest revision is how later runs tell the pipeline's own writes from manual
    edits: left pointing at a reverted revision, it would make the restored target look edited
    by hand.
    """
    logs = TranslationLog.objects.filter(source__object_id=object_key, locale_id=locale_id)
    if revision_id is not None:
        logs = logs.filter(revision_id__gt=revision_id)
    logs.exclude(revision_id=None).delete()
