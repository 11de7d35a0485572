"""Source segments: extraction, the change-detection hash, and the strings to translate."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from django.db import models
from wagtail_localize.models import StringSegment, TranslationSource
from wagtail_localize.segments import (
    OverridableSegmentValue,
    RelatedObjectSegmentValue,
    StringSegmentValue,
    TemplateSegmentValue,
)
from wagtail_localize.segments.extract import extract_segments

from .segment_rows import field_path


def segment_hash(segments: list) -> str:
    """Hash of the translatable content only.

    wagtail-localize's stored ``content_json`` changes on every republish (it includes revision
    ids and timestamps), so it cannot tell whether the text changed; the extracted segments can.
    """
    parts = []
    for seg in segments:
        if isinstance(seg, StringSegmentValue):
            parts.append(["s", seg.path, seg.string.data, json.dumps(seg.attrs, sort_keys=True)])
        elif isinstance(seg, OverridableSegmentValue):
            parts.append(["o", seg.path, json.dumps(seg.data, sort_keys=True, default=str)])
        elif isinstance(seg, RelatedObjectSegmentValue):
            parts.append(["r", seg.path, str(seg.translation_key)])
        elif isinstance(seg, TemplateSegmentValue):
            parts.append(["t", seg.path, seg.template])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def extract(instance: models.Model) -> list:
    return extract_segments(instance)


def hash_instance(instance: models.Model) -> tuple[str, list]:
    segments = extract(instance)
    return segment_hash(segments), segments


def segment_texts(segments: list) -> list[str]:
    """The texts of the extracted segments (what glossary terms may occur in)."""
    return [s.string.data for s in segments if isinstance(s, StringSegmentValue)]


def related_objects(segments: list) -> dict[int, set[Any]]:
    """{content type id: translation keys} of the objects the segments refer to (choosers)."""
    related: dict[int, set[Any]] = {}
    for segment in segments:
        if isinstance(segment, RelatedObjectSegmentValue):
            related.setdefault(segment.content_type.pk, set()).add(segment.translation_key)
    return related


@dataclass(frozen=True)
class SourceString:
    """One string of a source object; ``string_id`` is None when wagtail-localize does not
    store it (site settings rows have no TranslationSource)."""

    string_id: int | None
    context_id: int | None
    path: str
    data: str
    # The path with block names instead of block ids (what labels.field_label reads).
    field_path: str = field(default="", compare=False)


def load_source_strings(source: TranslationSource) -> list[SourceString]:
    rows = (
        StringSegment.objects.filter(source=source)
        .order_by("order")
        .values_list(
            "string_id", "context_id", "context__path", "string__data", "context__field_path"
        )
    )
    return [SourceString(*row) for row in rows]


def unstored_strings(segments: list, instance: models.Model | None = None) -> list[SourceString]:
    """The strings of segments extracted without a TranslationSource (site settings, the
    preflight's sample); with ``instance``, their field paths too."""
    return [
        SourceString(
            None,
            None,
            s.path,
            s.string.data,
            field_path(s.path, instance) if instance is not None else s.path,
        )
        for s in segments
        if isinstance(s, StringSegmentValue)
    ]
