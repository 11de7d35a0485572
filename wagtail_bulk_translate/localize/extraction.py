"""Extracting an object into its TranslationSource with a handful of set-based queries.

wagtail-localize's ``refresh_segments`` does a ``get_or_create`` per String, TranslationContext,
Template and segment row: about 260 queries for a demo article, most of a worker's time
preparing an object. This module leaves exactly the rows it would leave (same natural keys and
values; only the ids of new rows may differ), from wagtail-localize's own extractor, by reading
the rows that exist in one query per table and creating the missing ones in one ``bulk_create``
per table.

It relies on wagtail-localize's tables and hashes, so it runs only on the versions it was
checked against; on any other, wagtail-localize's ``update_or_create_from_instance`` runs.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import logging
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction
from django.utils import timezone
from modelcluster.models import ClusterableModel, get_serializable_data_for_fields
from wagtail.models import Page
from wagtail_localize.models import (
    TranslatableObject,
    TranslationSource,
    get_schema_version,
)
from wagtail_localize.segments.extract import extract_segments

from .segment_rows import write_segment_rows

__all__ = [
    "update_or_create_source",
    "update_or_create_with_wagtail_localize",
    "uses_set_based_extraction",
]

logger = logging.getLogger(__name__)

# The wagtail-localize releases whose tables, hashes and refresh_segments() this module was
# compared with (tests/localize/test_extraction.py).
VERIFIED_VERSION_PREFIXES = ("1.14.",)

SOURCE_FIELDS = ["object_repr", "content_json", "schema_version", "last_updated_at"]


def update_or_create_source(instance: models.Model) -> tuple[TranslationSource, bool]:
    """``TranslationSource.update_or_create_from_instance``, set-based where it is verified."""
    if not uses_set_based_extraction():
        return update_or_create_with_wagtail_localize(instance)
    return update_or_create_set_based(instance)


def update_or_create_with_wagtail_localize(
    instance: models.Model,
) -> tuple[TranslationSource, bool]:
    """wagtail-localize's own extraction: a get_or_create per row."""
    with transaction.atomic():
        return TranslationSource.update_or_create_from_instance(instance)


def uses_set_based_extraction() -> bool:
    return version_is_verified(installed_wagtail_localize_version())


@functools.cache
def installed_wagtail_localize_version() -> str:
    return importlib.metadata.version("wagtail-localize")


@functools.cache
def version_is_verified(version: str) -> bool:
    """Cached per version, so which path is used is logged once."""
    verified = version.startswith(VERIFIED_VERSION_PREFIXES)
    if verified:
        logger.debug("wagtail-localize %s: set-based source extraction.", version)
    else:
        logger.debug(
            "wagtail-localize %s: its own source extraction (the set-based one is verified "
            "on %s only).",
            version,
            ", ".join(f"{prefix}x" for prefix in VERIFIED_VERSION_PREFIXES),
        )
    return verified


@transaction.atomic
def update_or_create_set_based(instance: Any) -> tuple[TranslationSource, bool]:
    """Same steps and fields as wagtail-localize 1.14's ``update_or_create_from_instance``."""
    if isinstance(instance, Page):
        instance = instance.specific
    translatable, _created = TranslatableObject.objects.get_or_create_from_instance(instance)
    content_json = serialize(instance)
    source = TranslationSource.objects.filter(
        object_id=translatable.translation_key, locale_id=instance.locale_id
    ).first()
    # Unchanged content keeps its segments and its last_updated_at, as in wagtail-localize.
    if source is not None and json.loads(content_json) == json.loads(source.content_json):
        return source, False
    content_type = ContentType.objects.get_for_model(instance.__class__)
    values = {
        "object_repr": str(instance)[:200],
        "content_json": content_json,
        "schema_version": get_schema_version(instance._meta.app_label),
        "last_updated_at": timezone.now(),
    }
    created = source is None
    if source is not None and source.specific_content_type_id == content_type.pk:
        for field, value in values.items():
            setattr(source, field, value)
        source.save(update_fields=SOURCE_FIELDS)
    else:
        # New source, or a changed content type: wagtail-localize's own call creates it or
        # fails on the (object, locale) constraint just as it would.
        source, created = TranslationSource.objects.update_or_create(
            object=translatable,
            locale_id=instance.locale_id,
            specific_content_type=content_type,
            defaults=values,
        )
    refresh_segments(source, new_source=created)
    return source, created


def serialize(instance: Any) -> str:
    """The source's ``content_json``, serialised as wagtail-localize does."""
    if isinstance(instance, ClusterableModel):
        return instance.to_json()
    return json.dumps(get_serializable_data_for_fields(instance), cls=DjangoJSONEncoder)


def refresh_segments(source: TranslationSource, *, new_source: bool) -> None:
    """Rows of ``source.refresh_segments()``: from the source's frozen content, not the row."""
    instance = source.as_instance()
    write_segment_rows(source, instance, extract_segments(instance), new_source=new_source)
