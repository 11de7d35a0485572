"""Source segments: the change-detection hash and which strings a target still needs."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from django.db import models
from wagtail_localize.models import StringSegment, StringTranslation
from wagtail_localize.segments import (
    OverridableSegmentValue,
    RelatedObjectSegmentValue,
    StringSegmentValue,
    TemplateSegmentValue,
)
from wagtail_localize.segments.extract import extract_segments

from ..engine.text_kinds import is_non_prose
from ..models import Mode

MANUAL = StringTranslation.TRANSLATION_TYPE_MANUAL


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


def hash_instance(instance: models.Model) -> tuple[str, list]:
    segments = extract_segments(instance)
    return segment_hash(segments), segments


@dataclass(frozen=True)
class SourceString:
    string_id: int
    context_id: int
    path: str
    data: str


@dataclass
class StringNeeds:
    """For one (object, locale): strings to translate and strings resolved without a call."""

    to_translate: list[SourceString] = field(default_factory=list)
    resolved: dict[SourceString, str] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.to_translate) + len(self.resolved)


def load_source_strings(source) -> list[SourceString]:
    rows = (
        StringSegment.objects.filter(source=source)
        .order_by("order")
        .values_list("string_id", "context_id", "context__path", "string__data")
    )
    return [SourceString(*row) for row in rows]


def existing_translations(strings: list[SourceString], locale_ids: list[int]) -> dict:
    """{(string_id, context_id, locale_id): (translation_type, has_error)} in one query."""
    if not strings:
        return {}
    rows = StringTranslation.objects.filter(
        translation_of_id__in={s.string_id for s in strings},
        context_id__in={s.context_id for s in strings},
        locale_id__in=locale_ids,
    ).values_list("translation_of_id", "context_id", "locale_id", "translation_type", "has_error")
    return {(s, c, loc): (kind, err) for s, c, loc, kind, err in rows}


def needs_translation(mode: str, existing: tuple[str, bool] | None) -> bool:
    if existing is None:
        return True
    kind, has_error = existing
    if mode == Mode.OVERWRITE:
        return True
    if kind == MANUAL:
        return False  # a human's translation is never replaced outside overwrite mode
    return has_error or mode == Mode.REFRESH


def is_excluded(path: str, excluded_fields: list[str]) -> bool:
    return any(path == name or path.startswith(f"{name}.") for name in excluded_fields)


def plan_strings(
    strings: list[SourceString],
    existing: dict,
    locale_id: int,
    *,
    mode: str,
    excluded_fields: list[str],
    slug_value: str | None,
) -> StringNeeds:
    """Decide, string by string, what a target locale needs.

    ``slug_value`` is the slug to store for the page's ``slug`` segment (None: translate it).
    Non-prose strings and excluded fields are copied unchanged instead of paid for.
    """
    needs = StringNeeds()
    for s in strings:
        if not needs_translation(mode, existing.get((s.string_id, s.context_id, locale_id))):
            continue
        if s.path == "slug" and slug_value is not None:
            needs.resolved[s] = slug_value
        elif is_excluded(s.path, excluded_fields) or is_non_prose(s.data):
            needs.resolved[s] = s.data
        else:
            needs.to_translate.append(s)
    return needs
