"""The preflight's figures: how many units a run would refuse to its editor, and why.

By the rules of :mod:`.permissions`, set-based: a few queries per model, locale and chunk.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.contenttypes.models import ContentType
from wagtail.models import Locale

from ..objects import objects_by_pk
from .enumeration import ScopedObject
from .permissions import destinations, refusal_for

# Objects loaded per query when counting refusals for a preflight.
CHUNK = 500


@dataclass
class RefusalCounts:
    """Units (object, locale) a user may not translate at all, and units they may translate as
    drafts but not publish."""

    not_permitted: int = 0
    not_publishable: int = 0


def count_refusals(
    user: Any,
    objects: Iterable[ScopedObject],
    targets: list[Locale],
    *,
    overwrite: bool = False,
) -> RefusalCounts:
    """What a run of these objects into ``targets`` would refuse to ``user`` (None: nothing)."""
    counts = RefusalCounts()
    if user is None:
        return counts
    by_type: dict[int, list[ScopedObject]] = {}
    for obj in objects:
        by_type.setdefault(obj.content_type_id, []).append(obj)
    for content_type_id, scoped in by_type.items():
        model = ContentType.objects.get_for_id(content_type_id).model_class()
        if model is None:
            continue  # a model removed since: the run reports it
        for start in range(0, len(scoped), CHUNK):
            chunk = scoped[start : start + CHUNK]
            loaded = objects_by_pk(model, [obj.object_id for obj in chunk])
            count_chunk(user, chunk, loaded, targets, counts, overwrite=overwrite)
    return counts


def count_chunk(
    user: Any,
    chunk: list[ScopedObject],
    loaded: dict[Any, Any],
    targets: list[Locale],
    counts: RefusalCounts,
    *,
    overwrite: bool,
) -> None:
    by_id = {str(pk): instance for pk, instance in loaded.items()}
    for locale in targets:
        wanted = [
            by_id[obj.object_id]
            for obj in chunk
            if obj.object_id in by_id
            and (obj.target_locale_ids is None or locale.pk in obj.target_locale_ids)
        ]
        found = destinations(wanted, locale)
        for source in wanted:
            refused = refusal_for(
                user, source, found[source.pk], locale, publish=True, overwrite=overwrite
            )
            if refused is None:
                continue
            if refused.publishing:
                counts.not_publishable += 1
            else:
                counts.not_permitted += 1
