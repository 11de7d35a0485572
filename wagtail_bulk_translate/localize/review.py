"""Canary review: each sampled unit's source strings beside the translations the canary stored.

Read from wagtail-localize's tables (the segments of the object's translation source and the
``StringTranslation`` rows of the target locale) in a fixed number of queries for the whole
sample, so the admin can show "source | translation" side by side without importing
wagtail-localize itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import unescape

from django.utils.html import strip_tags
from wagtail_localize.models import StringSegment, StringTranslation, TranslationSource

from ..errors import ErrorCode
from ..models import Run, Unit

SEGMENTS_PER_SAMPLE = 40


@dataclass(frozen=True)
class SampleString:
    """One translatable string: where it sits, its source text, its translation (if any).

    Texts are plain (inline markup stripped) so they can be shown as they read.
    """

    field_path: str
    source: str
    translation: str | None


@dataclass
class CanarySample:
    unit_id: int
    locale_code: str
    status: str
    error_code: str
    error_message: str
    strings: list[SampleString] = field(default_factory=list)
    more_strings: int = 0


def canary_samples(run_id: int) -> list[CanarySample]:
    """The units a canary actually worked on (not those left out of the sample), in
    enumeration order, with their strings. Raises Run.DoesNotExist for an unknown run."""
    run = Run.objects.get(pk=run_id)
    units = list(
        run.units.exclude(error_code=ErrorCode.CANARY_NOT_SAMPLED)
        .select_related("target_locale")
        .order_by("position", "target_locale_id")
    )
    strings = strings_by_unit(run, units)
    samples = []
    for unit in units:
        found = strings.get(unit.pk, [])
        samples.append(
            CanarySample(
                unit_id=unit.pk,
                locale_code=unit.target_locale.language_code,
                status=unit.status,
                error_code=unit.error_code,
                error_message=unit.error_message,
                strings=found[:SEGMENTS_PER_SAMPLE],
                more_strings=max(len(found) - SEGMENTS_PER_SAMPLE, 0),
            )
        )
    return samples


def strings_by_unit(run: Run, units: list[Unit]) -> dict[int, list[SampleString]]:
    sources = dict(
        TranslationSource.objects.filter(
            object_id__in={unit.object_key for unit in units}, locale_id=run.source_locale_id
        ).values_list("object_id", "pk")
    )
    segments: dict[int, list[StringSegment]] = {}
    for segment in (
        StringSegment.objects.filter(source_id__in=sources.values())
        .select_related("string", "context")
        .order_by("source_id", "order")
    ):
        segments.setdefault(segment.source_id, []).append(segment)
    translations = translations_of(segments, {unit.target_locale_id for unit in units})
    result: dict[int, list[SampleString]] = {}
    for unit in units:
        source_id = sources.get(unit.object_key)
        result[unit.pk] = [
            SampleString(
                field_path=segment.context.field_path or segment.context.path,
                source=readable(segment.string.data),
                translation=readable_or_none(
                    translations.get((segment.string_id, segment.context_id, unit.target_locale_id))
                ),
            )
            for segment in segments.get(source_id, [])
        ]
    return result


def translations_of(segments: dict[int, list[StringSegment]], locale_ids: set[int]):
    """{(string id, context id, locale id): translated text} for these segments."""
    all_segments = [segment for group in segments.values() for segment in group]
    rows = StringTranslation.objects.filter(
        translation_of_id__in={s.string_id for s in all_segments},
        context_id__in={s.context_id for s in all_segments},
        locale_id__in=locale_ids,
        has_error=False,
    ).values_list("translation_of_id", "context_id", "locale_id", "data")
    return {(string, context, locale): data for string, context, locale, data in rows}


def readable(html: str) -> str:
    return unescape(strip_tags(html))


def readable_or_none(html: str | None) -> str | None:
    return None if html is None else readable(html)
