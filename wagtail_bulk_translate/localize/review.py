"""Canary review: each sampled unit's source strings beside the translations the canary stored.

Read from wagtail-localize's tables (the segments of the object's translation source and the
``StringTranslation`` rows of the target locale) in a fixed number of queries for a page of the
sample, so the admin can show "source | translation" side by side without importing
wagtail-localize itself. ``canary_outcome`` counts what the sample came to, so the review can
say why a canary of 20 wrote fewer than 20 translations.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from html import unescape

from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Q, QuerySet
from django.utils.html import strip_tags
from wagtail_localize.models import StringSegment, StringTranslation, TranslationSource

from ..errors import ErrorCode
from ..models import Run, Unit, UnitStatus
from .labels import field_label

SEGMENTS_PER_SAMPLE = 40


@dataclass(frozen=True)
class SampleString:
    """One translatable string: where it sits, its source text, its translation (if any).

    Texts are plain (inline markup stripped) so they can be shown as they read.
    """

    field_path: str
    source: str
    translation: str | None
    label: str = ""  # the field as the edit form names it ("Body > Paragraph")


@dataclass
class CanarySample:
    unit_id: int
    locale_code: str
    status: str
    error_code: str
    error_message: str
    note: str = ""  # why a unit that succeeded wrote no target (a model without drafts)
    strings: list[SampleString] = field(default_factory=list)
    more_strings: int = 0


@dataclass(frozen=True)
class CanaryOutcome:
    """What a canary's sample came to: the numbers behind "canary of 20, 19 translated"."""

    size: int  # the sample size asked for
    scope_units: int  # units in the run's scope, sampled or not
    worked: int  # units sampled (with the parent pages sampled pages need)
    written: int  # succeeded and wrote their target (as drafts)
    stored_only: int  # succeeded, translations stored, target not written (no drafts)
    in_flight: int  # pending or running
    skipped: dict[str, int] = field(default_factory=dict)  # by error code
    failed: dict[str, int] = field(default_factory=dict)  # by error code


def canary_units(
    run_id: int, *, locale_code: str = "", content_type_id: int | None = None
) -> QuerySet[Unit]:
    """The units a canary actually worked on (not those left out of the sample), in
    enumeration order, optionally of one target locale and one content type."""
    units = Unit.objects.filter(run_id=run_id).exclude(error_code=ErrorCode.CANARY_NOT_SAMPLED)
    if locale_code:
        units = units.filter(target_locale__language_code=locale_code)
    if content_type_id is not None:
        units = units.filter(content_type_id=content_type_id)
    return units.select_related("target_locale").order_by("position", "target_locale_id")


def canary_samples(run_id: int, units: Iterable[Unit] | None = None) -> list[CanarySample]:
    """The canary's sampled units (or these ``units`` of it, a page of them) with their
    strings. Raises Run.DoesNotExist for an unknown run."""
    run = Run.objects.get(pk=run_id)
    units = list(canary_units(run_id) if units is None else units)
    strings = strings_by_unit(run, units)
    return [
        CanarySample(
            unit_id=unit.pk,
            locale_code=unit.target_locale.language_code,
            status=unit.status,
            error_code=unit.error_code,
            error_message=unit.error_message,
            note=unit.note,
            strings=strings.get(unit.pk, [])[:SEGMENTS_PER_SAMPLE],
            more_strings=max(len(strings.get(unit.pk, [])) - SEGMENTS_PER_SAMPLE, 0),
        )
        for unit in units
    ]


def canary_outcome(run: Run) -> CanaryOutcome:
    """Counts of the canary's sampled units by outcome, in one grouped query."""
    rows = (
        Unit.objects.filter(run_id=run.pk)
        .values_list("status", "error_code")
        .annotate(n=Count("pk"), notes=Count("pk", filter=~Q(note="")))
        .order_by()
    )
    counts = {"scope": 0, "worked": 0, "written": 0, "stored_only": 0, "in_flight": 0}
    skipped: dict[str, int] = {}
    failed: dict[str, int] = {}
    for status, code, n, notes in rows:
        counts["scope"] += n
        if code == ErrorCode.CANARY_NOT_SAMPLED and status == UnitStatus.SKIPPED:
            continue
        counts["worked"] += n
        if status == UnitStatus.SUCCEEDED:
            counts["written"] += n - notes
            counts["stored_only"] += notes
        elif status in UnitStatus.in_flight:
            counts["in_flight"] += n
        else:
            outcome = failed if status == UnitStatus.FAILED else skipped
            outcome[code] = outcome.get(code, 0) + n
    return CanaryOutcome(
        size=run.canary_size or 0,
        scope_units=counts["scope"],
        worked=counts["worked"],
        written=counts["written"],
        stored_only=counts["stored_only"],
        in_flight=counts["in_flight"],
        skipped=skipped,
        failed=failed,
    )


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
        # No translation source yet (None): no segments, as segments has no None key.
        unit_segments = segments.get(source_id, []) if source_id is not None else []
        model = ContentType.objects.get_for_id(unit.content_type_id).model_class()
        result[unit.pk] = [
            SampleString(
                field_path=(path := segment.context.field_path or segment.context.path),
                label=field_label(model, path) if model else path,
                source=readable(segment.string.data),
                translation=readable_or_none(
                    translations.get((segment.string_id, segment.context_id, unit.target_locale_id))
                ),
            )
            for segment in unit_segments
        ]
    return result


def translations_of(
    segments: dict[int, list[StringSegment]], locale_ids: set[int]
) -> dict[tuple[int, int, int], str]:
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
