"""Step 1 of a claim: load each source object once, extract and hash it, skip what is unchanged.

Everything here is shared by the locales of one object. In "changed" mode, units whose hash
matches their last successful machine translation are skipped without a translator call or a
new revision; the others go on to :mod:`.plan`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.contrib.contenttypes.models import ContentType

from ..conf import get_settings
from ..errors import ErrorCode, UnitError
from ..localize import site_settings
from ..localize.segments import (
    hash_instance,
    load_source_strings,
    related_objects,
    segment_texts,
    unstored_strings,
)
from ..localize.sources import update_source
from ..models import ContentSource, Mode, Run, Unit, UnitStatus
from ..objects import find_by_content_type
from ..revert.snapshots import row_fingerprint
from ..scope.definition import model_label
from . import claims
from .failures import close_units
from .plan import decide_publish, load_targets, plan_units
from .signatures import fold_rule_changes, signed_hashes
from .work import ObjectWork


def prepare_object(run: Run, token: str, obj: ObjectWork) -> None:
    first = obj.units[0].unit
    obj.instance = load_source(run, first)
    if obj.instance is None:
        raise UnitError(ErrorCode.SOURCE_DELETED, "The source object no longer exists.")
    obj.version = row_fingerprint(obj.instance)
    source_hash, segments = hash_instance(obj.instance)
    related = related_objects(segments)
    obj.related_keys = {key for keys in related.values() for key in keys}
    obj.hashes = fold_rule_changes(
        signed_hashes(
            locale_hashes(source_hash, related, [w.unit.target_locale_id for w in obj.units]),
            {w.unit.target_locale_id: w.signature for w in obj.units},
        ),
        obj.units,
        segment_texts(segments),
    )
    if run.mode == Mode.CHANGED:
        skip_unchanged(run, token, obj)
    if obj.is_site_setting:
        prepare_site_setting(run, token, obj, segments)
    elif obj.open_units():
        obj.source = update_source(obj.instance)
        obj.strings = load_source_strings(obj.source)
    if obj.open_units():
        plan_units(run, token, obj, obj.open_units())


def prepare_site_setting(run: Run, token: str, obj: ObjectWork, segments: list) -> None:
    """Settings rows have no TranslationSource: their own segments are what is translated."""
    if run.is_canary:
        # A site's settings row has no draft to review, and canary output is drafts only.
        close_units(
            token,
            obj.open_units(),
            UnitStatus.SKIPPED,
            ErrorCode.CANARY_NOT_SAMPLED,
            "Site settings have no drafts: the full run translates them.",
        )
        return
    excluded = get_settings().EXCLUDE_FIELDS.get(model_label(type(obj.instance)), [])
    obj.segments = site_settings.without_excluded_fields(segments, excluded)
    obj.strings = unstored_strings(obj.segments)


def load_source(run: Run, unit: Unit) -> Any:
    instance = find_by_content_type(unit.content_type_id, unit.object_id)
    if (
        instance is not None
        and run.content_source == ContentSource.LATEST_DRAFT
        and hasattr(instance, "get_latest_revision_as_object")
    ):
        instance = instance.get_latest_revision_as_object()
    return instance


def check_source_unchanged(obj: ObjectWork) -> None:
    """Refuse a stale write: the source changed after it was extracted (retried later)."""
    if row_fingerprint(obj.instance) != obj.version:
        raise UnitError(
            ErrorCode.SOURCE_CHANGED,
            "The source was edited while it was being translated; it will be translated again.",
            transient=True,
        )


def locale_hashes(
    source_hash: str, related: dict[int, set[Any]], locale_ids: list[int]
) -> dict[int, str]:
    """The source hash, per target locale, plus which related objects exist in that locale.

    A page chooses a snippet; until the snippet is translated the page's translation points to
    the source-locale snippet. Once it is translated, the page must be written again to point
    to it, although its own text did not change: the related objects available in the locale
    are part of what the target depends on.
    """
    if not related:
        return dict.fromkeys(locale_ids, source_hash)
    available: dict[int, list[str]] = {locale_id: [] for locale_id in locale_ids}
    for content_type_id, keys in related.items():
        model: Any = ContentType.objects.get_for_id(content_type_id).model_class()
        rows = model._default_manager.filter(
            translation_key__in=keys, locale_id__in=locale_ids
        ).values_list("locale_id", "translation_key")
        for locale_id, key in rows:
            available[locale_id].append(f"{content_type_id}:{key}")
    return {
        locale_id: hashlib.sha256(json.dumps([source_hash, sorted(keys)]).encode()).hexdigest()
        for locale_id, keys in available.items()
    }


def skip_unchanged(run: Run, token: str, obj: ObjectWork) -> None:
    """Skip locales with nothing to do: same source hash as their last machine translation,
    target present, and already in the live/draft state this run asks for."""
    first = obj.units[0].unit
    locale_ids = [w.unit.target_locale_id for w in obj.units]
    last_hashes = last_translated_hashes(first.object_key, locale_ids)
    targets = load_targets(obj.instance, locale_ids) if last_hashes else {}
    wants_publish = decide_publish(run, obj.instance)
    related_in_run = related_translated_by_run(run, obj)
    for work in obj.units:
        locale_id = work.unit.target_locale_id
        target = targets.get(locale_id)
        if target is None or last_hashes.get(locale_id) != obj.hashes[locale_id]:
            continue
        if locale_id in related_in_run:
            continue  # a snippet it uses is being translated: point the target to it
        if wants_publish and getattr(target, "has_unpublished_changes", False):
            continue  # e.g. a canary's draft that a full run now publishes
        claims.finish_unit(
            work.unit,
            token,
            UnitStatus.SKIPPED,
            error_code=ErrorCode.UNCHANGED,
            error_message="Unchanged since its last machine translation.",
            source_hash=obj.hashes[work.unit.target_locale_id],
        )
        work.done = True


def related_translated_by_run(run: Run, obj: ObjectWork) -> set[int]:
    """Locales in which this run translates an object the source refers to."""
    if not obj.related_keys:
        return set()
    return set(
        Unit.objects.filter(run_id=run.pk, object_key__in=obj.related_keys)
        .filter(status__in=[*UnitStatus.in_flight, UnitStatus.SUCCEEDED])
        .values_list("target_locale_id", flat=True)
    )


def last_translated_hashes(object_key: Any, locale_ids: list[int]) -> dict[int, str]:
    rows = (
        Unit.objects.filter(
            object_key=object_key, target_locale_id__in=locale_ids, status=UnitStatus.SUCCEEDED
        )
        .exclude(source_hash="")
        .order_by("target_locale_id", "-finished_at")
        .values_list("target_locale_id", "source_hash")
    )
    hashes: dict[int, str] = {}
    for locale_id, value in rows:
        hashes.setdefault(locale_id, value)
    return hashes
