"""The rows ``refresh_segments`` leaves for one source, written set by set.

Each lookup table (String, TranslationContext, Template, TranslatableObject) is read once for
the keys the segments need; the missing rows are created in one ``bulk_create`` that ignores
conflicts (another worker may create the same shared string meanwhile; wagtail-localize's
get_or_create tolerates that race too) and read again for their ids. The four segment tables
are then made equal to the extracted segments: rows that match are kept (as get_or_create
keeps them), the others are deleted and the missing ones created.

Shared rows are inserted in key order, so two workers inserting overlapping strings take the
unique-index locks in the same order (PostgreSQL) instead of waiting on each other.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from types import SimpleNamespace
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, models
from wagtail_localize.models import (
    OverridableSegment,
    RelatedObjectSegment,
    String,
    StringSegment,
    Template,
    TemplateSegment,
    TranslatableObject,
    TranslationContext,
    TranslationSource,
)
from wagtail_localize.segments import (
    OverridableSegmentValue,
    RelatedObjectSegmentValue,
    StringSegmentValue,
    TemplateSegmentValue,
)

__all__ = ["write_segment_rows"]

# A segment row's identity, as refresh_segments' get_or_create matches it (besides the source).
SEGMENT_FIELDS: dict[type[models.Model], tuple[str, ...]] = {
    StringSegment: ("context_id", "order", "string_id", "attrs"),
    TemplateSegment: ("context_id", "order", "template_id"),
    RelatedObjectSegment: ("context_id", "order", "object_id"),
    OverridableSegment: ("context_id", "order", "data_json"),
}


def write_segment_rows(
    source: TranslationSource, instance: Any, segments: list, *, new_source: bool
) -> None:
    contexts = ensure_contexts(source.object_id, instance, [s.path for s in segments])
    strings = ensure_strings(
        source.locale_id, [s.string.data for s in segments if isinstance(s, StringSegmentValue)]
    )
    templates = ensure_templates([s for s in segments if isinstance(s, TemplateSegmentValue)])
    ensure_related_objects([s for s in segments if isinstance(s, RelatedObjectSegmentValue)])
    wanted: dict[type[models.Model], list[tuple]] = {model: [] for model in SEGMENT_FIELDS}
    for segment in segments:
        model, key = segment_key(segment, contexts, strings, templates)
        wanted[model].append(key)
    for model, keys in wanted.items():
        replace_segments(model, source, keys, new_source=new_source)


def segment_key(
    segment: Any, contexts: dict[str, int], strings: dict[uuid.UUID, int], templates: dict
) -> tuple[type[models.Model], tuple]:
    """The segment's model and its values in ``SEGMENT_FIELDS`` order."""
    context_id = contexts[segment.path]
    if isinstance(segment, TemplateSegmentValue):
        return TemplateSegment, (context_id, segment.order, templates[template_uuid(segment)])
    if isinstance(segment, RelatedObjectSegmentValue):
        return RelatedObjectSegment, (context_id, segment.order, segment.translation_key)
    if isinstance(segment, OverridableSegmentValue):
        data_json = json.dumps(segment.data, cls=DjangoJSONEncoder)
        return OverridableSegment, (context_id, segment.order, data_json)
    string_id = strings[String._get_data_hash(segment.string.data)]
    attrs = json.dumps(segment.attrs, cls=DjangoJSONEncoder)
    return StringSegment, (context_id, segment.order, string_id, attrs)


def ensure_contexts(object_id: Any, instance: Any, paths: list[str]) -> dict[str, int]:
    """{path: TranslationContext id}, with ``field_path`` filled in as refresh_segments does."""
    path_ids = {path: TranslationContext._get_path_id(path) for path in dict.fromkeys(paths)}
    found = read_creating_missing(
        TranslationContext,
        lambda: read_contexts(object_id, path_ids),
        lambda found: [
            TranslationContext(
                object_id=object_id,
                path=path,
                path_id=path_id,
                field_path=field_path(path, instance),
            )
            for path, path_id in path_ids.items()
            if path not in found
        ],
    )
    # Contexts made before wagtail-localize 1.0 have no field path: it fills them in.
    unfilled = [context for context in found.values() if not context.field_path]
    for context in unfilled:
        context.field_path = field_path(context.path, instance)
    if unfilled:
        TranslationContext.objects.bulk_update(unfilled, ["field_path"])
    return {path: context.pk for path, context in found.items()}


def read_creating_missing(
    model: type[models.Model],
    read: Callable[[], dict[Any, Any]],
    missing_rows: Callable[[dict[Any, Any]], list[models.Model]],
) -> dict[Any, Any]:
    """Rows by key: read once, the missing ones created in one insert (rows another worker
    inserted meanwhile are kept: conflicts are ignored), then read again."""
    found = read()
    missing = missing_rows(found)
    if missing:
        model._default_manager.bulk_create(missing, ignore_conflicts=True)
        found = read()
    return found


def read_contexts(object_id: Any, path_ids: dict[str, uuid.UUID]) -> dict[str, Any]:
    rows = TranslationContext.objects.filter(object_id=object_id, path_id__in=path_ids.values())
    return {row.path: row for row in rows if row.path in path_ids}


def field_path(path: str, instance: Any) -> str:
    """wagtail-localize's own field path of a content path.

    ``TranslationContext.get_field_path`` computes it and saves the row; it is called here on a
    stand-in (``field_path``, ``path`` and a no-op ``save`` are all it uses), so new contexts
    are created with it in one query.
    """
    stand_in = SimpleNamespace(field_path="", path=path, save=lambda **kwargs: None)
    return TranslationContext.get_field_path(stand_in, instance)


def ensure_strings(locale_id: int, texts: list[str]) -> dict[uuid.UUID, int]:
    """{data_hash: String id} of the texts in the locale (String.from_value, set-based)."""
    by_hash = {String._get_data_hash(text): text for text in texts}
    if not by_hash:
        return {}
    return read_creating_missing(
        String,
        lambda: read_strings(locale_id, by_hash),
        lambda found: [
            String(locale_id=locale_id, data_hash=data_hash, data=text)
            for data_hash, text in sorted(by_hash.items())
            if data_hash not in found
        ],
    )


def read_strings(locale_id: int, by_hash: dict[uuid.UUID, str]) -> dict[uuid.UUID, int]:
    rows = String.objects.filter(locale_id=locale_id, data_hash__in=by_hash)
    return dict(rows.values_list("data_hash", "pk"))


def template_uuid(value: TemplateSegmentValue) -> uuid.UUID:
    """Template.from_value's key: the template hashed in its format's namespace."""
    namespace = uuid.uuid5(Template.BASE_UUID_NAMESPACE, value.format)
    return uuid.uuid5(namespace, value.template)


def ensure_templates(values: list[TemplateSegmentValue]) -> dict[uuid.UUID, int]:
    """{uuid: Template id} (Template.from_value, set-based)."""
    by_uuid = {template_uuid(value): value for value in values}
    if not by_uuid:
        return {}
    return read_creating_missing(
        Template,
        lambda: read_templates(by_uuid),
        lambda found: [
            Template(
                uuid=key,
                template=value.template,
                template_format=value.format,
                string_count=value.string_count,
            )
            for key, value in sorted(by_uuid.items(), key=lambda item: item[0])
            if key not in found
        ],
    )


def read_templates(by_uuid: dict[uuid.UUID, Any]) -> dict[uuid.UUID, int]:
    return dict(Template.objects.filter(uuid__in=by_uuid).values_list("uuid", "pk"))


def ensure_related_objects(values: list[RelatedObjectSegmentValue]) -> None:
    """The TranslatableObjects the segments point to (get_or_create by type and key)."""
    wanted = {value.translation_key: value.content_type.pk for value in values}
    if not wanted:
        return
    found = read_creating_missing(
        TranslatableObject,
        lambda: read_translatable_objects(wanted),
        lambda found: [
            TranslatableObject(translation_key=key, content_type_id=content_type_id)
            for key, content_type_id in sorted(wanted.items(), key=lambda item: str(item[0]))
            if key not in found
        ],
    )
    mismatched = [
        key for key, content_type_id in wanted.items() if found.get(key) != content_type_id
    ]
    if mismatched:
        # get_or_create fails the same way: the key is taken by another content type.
        raise IntegrityError(f"Translation keys of another content type: {mismatched}")


def read_translatable_objects(wanted: dict[Any, int]) -> dict[Any, int]:
    rows = TranslatableObject.objects.filter(translation_key__in=wanted)
    return dict(rows.values_list("translation_key", "content_type_id"))


def replace_segments(
    model: type[models.Model], source: TranslationSource, keys: list[tuple], *, new_source: bool
) -> None:
    """Keep the rows that match an extracted segment, delete the rest, create the missing."""
    fields = SEGMENT_FIELDS[model]
    manager: Any = model._default_manager
    existing: dict[tuple, int] = {}
    stale: list[int] = []
    if not new_source:
        for pk, *values in manager.filter(source=source).values_list("pk", *fields):
            if tuple(values) in existing:
                stale.append(pk)
            else:
                existing[tuple(values)] = pk
    wanted = set(keys)
    stale.extend(pk for key, pk in existing.items() if key not in wanted)
    if stale:
        manager.filter(pk__in=stale).delete()
    manager.bulk_create(new_rows(model, source, fields, keys, existing))


def new_rows(
    model: type[models.Model],
    source: TranslationSource,
    fields: tuple[str, ...],
    keys: Iterable[tuple],
    existing: dict[tuple, int],
) -> list[models.Model]:
    return [
        model(source=source, **dict(zip(fields, key, strict=True)))
        for key in keys
        if key not in existing
    ]
