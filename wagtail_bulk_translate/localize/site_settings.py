"""Per-site settings: translated row to row between sites that serve different locales.

``BaseSiteSetting`` cannot be made translatable (its ``site`` is unique), so there is no
TranslationSource: the source row's segments are extracted with wagtail-localize, their strings
go through the same translate step as every other unit's, and the translations are ingested into
the target site's row. The unit row keeps the hash and revert data.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from wagtail_localize.segments import StringSegmentValue
from wagtail_localize.segments.ingest import ingest_segments
from wagtail_localize.strings import StringValue

from ..errors import ErrorCode, UnitError
from ..translatable_settings import site_locale_map, sites_serving
from .segments import SourceString


def without_excluded_fields(segments: list, excluded: list[str]) -> list:
    """Segments of the fields to translate; ingesting them never touches excluded fields."""
    return [s for s in segments if s.path.split(".")[0] not in set(excluded)]


def target_row(instance: models.Model, locale: Any) -> Any:
    """The row of the site serving ``locale``; a new row starts as a copy of the source's."""
    site_ids = sites_serving(locale)
    if not site_ids:
        raise UnitError(
            ErrorCode.VALIDATION_ERROR,
            f"No site serves the locale {locale}: map one in "
            'WAGTAIL_BULK_TRANSLATE["SITE_LOCALES"].',
        )
    model = type(instance)
    row: Any = model._default_manager.filter(site_id=site_ids[0]).first()
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
    rows: Any = type(instance)._default_manager.filter(site_id__in=list(served))
    return {served[row.site_id]: row for row in rows if served[row.site_id] in set(locale_ids)}


def apply_translations(
    instance: models.Model,
    row: models.Model,
    segments: list,
    values: dict[SourceString, str],
    source_locale: Any,
    locale: Any,
) -> models.Model:
    """Write the translated strings into the target row. Call inside a transaction."""
    by_path = {s.path: value for s, value in values.items()}
    translated = [
        StringSegmentValue(
            s.path, StringValue(by_path.get(s.path, s.string.data)), attrs=s.attrs
        ).with_order(s.order)
        if isinstance(s, StringSegmentValue)
        else s
        for s in segments
    ]
    ingest_segments(instance, row, source_locale, locale, translated)
    row.full_clean()
    row.save()
    return row
