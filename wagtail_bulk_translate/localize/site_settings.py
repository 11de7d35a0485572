"""Per-site settings: translated row to row between sites that serve different locales.

``BaseSiteSetting`` cannot be made translatable (its ``site`` is unique), so there is no
TranslationSource: the source row's segments are extracted with wagtail-localize, translated,
and ingested into the target site's row. The unit row keeps the hash and revert data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import models
from wagtail_localize.segments import StringSegmentValue
from wagtail_localize.segments.extract import extract_segments
from wagtail_localize.segments.ingest import ingest_segments
from wagtail_localize.strings import StringValue

from ..conf import get_settings
from ..engine.text_kinds import is_non_prose
from ..errors import ErrorCode, UnitError
from ..revert.snapshots import serialize
from ..translatable_settings import site_locale_map, sites_serving


@dataclass(frozen=True)
class TranslatedSegments:
    segments: list
    strings: int
    billed: int


def translate_segments(instance: models.Model, source_locale, locale, translator):
    """Extract and translate a settings row's strings (no database writes).

    Excluded fields are left out of the result, so ingesting it never touches them.
    """
    excluded = set(get_settings().EXCLUDE_FIELDS.get(instance._meta.label, []))
    segments = [s for s in extract_segments(instance) if s.path.split(".")[0] not in excluded]
    texts = {
        s.string.data
        for s in segments
        if isinstance(s, StringSegmentValue) and not is_non_prose(s.string.data)
    }
    results = {}
    if texts:
        raw = translator.translate(source_locale, locale, [StringValue(t) for t in texts])
        results = {k.data: v.data for k, v in raw.items() if v is not None}
    missing = texts - set(results)
    if missing:
        raise UnitError(
            ErrorCode.TRANSLATOR_ERROR,
            f"The translator returned nothing for {len(missing)} string(s).",
        )
    translated = [
        StringSegmentValue(
            s.path, StringValue(results.get(s.string.data, s.string.data)), attrs=s.attrs
        ).with_order(s.order)
        if isinstance(s, StringSegmentValue)
        else s
        for s in segments
    ]
    billed = getattr(translator, "billed_characters", None) or {}
    return TranslatedSegments(translated, len(texts), sum(int(billed.get(t, 0)) for t in texts))


def target_row(instance: models.Model, locale) -> models.Model:
    """The row of the site serving ``locale``; a new row starts as a copy of the source's."""
    site_ids = sites_serving(locale)
    if not site_ids:
        raise UnitError(
            ErrorCode.VALIDATION_ERROR,
            f"No site serves the locale {locale}: map one in "
            'WAGTAIL_BULK_TRANSLATE["SITE_LOCALES"].',
        )
    model = type(instance)
    row = model._default_manager.filter(site_id=site_ids[0]).first()
    if row is None:
        row = model(
            **{
                f.attname: getattr(instance, f.attname)
                for f in model._meta.concrete_fields
                if not f.primary_key
            }
        )
        row.site_id = site_ids[0]
    return row


def target_rows(instance: models.Model, locale_ids: list[int]) -> dict[int, models.Model]:
    """Existing target rows of a settings row, by locale id (for change detection)."""
    served = {site_id: locale.pk for site_id, locale in site_locale_map().items()}
    rows = type(instance)._default_manager.filter(site_id__in=list(served))
    return {served[row.site_id]: row for row in rows if served[row.site_id] in set(locale_ids)}


def snapshot_row(row: models.Model) -> dict[str, Any]:
    if row.pk is None:
        return {"existed": False}
    return {"existed": True, "pk": str(row.pk), "content": serialize(row)}


def apply_segments(instance, row, source_locale, locale, translated: TranslatedSegments):
    """Write translated segments into the target row. Call inside a transaction."""
    ingest_segments(instance, row, source_locale, locale, translated.segments)
    row.full_clean()
    row.save()
    return row
