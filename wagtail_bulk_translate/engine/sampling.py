"""Canaries: a deterministic, stratified sample of a run's units, and the parents it needs.

The sample is drawn among the units that need work (needs_work.py: in ``changed`` mode, those
not translated yet or edited since), then, if they are too few, among those that may; units
with nothing to do are never picked, so a canary shows translations rather than "skipped:
unchanged" (and may be smaller than asked for). The sample is seeded by the run id, so
re-running the sampler picks the same units. Strata are
(content type, target locale) pairs; each pick goes to the stratum whose content type and locale
have been picked least, so every content type and every locale is represented before any of
them gets a second pick.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction
from django.utils import timezone
from wagtail.models import Page

from ..errors import ErrorCode
from ..models import Run, Unit, UnitStatus
from .needs_work import unit_ids_by_need

DUPLICATE_MESSAGE = "Another run is already translating this object into this locale."


# (unit id, content type id, target locale id) of a unit, in position order.
UnitRow = tuple[int, int, int]


def stratum_sizes(rows: list[UnitRow]) -> dict[tuple[int, int], int]:
    return dict(Counter((ct, loc) for _pk, ct, loc in rows))


def plan_picks(sizes: dict[tuple[int, int], int], size: int, seed: int) -> list[tuple[int, int]]:
    """The stratum of each pick, in pick order (pure: no database access)."""
    rng = random.Random(seed)
    tiebreak = {stratum: rng.random() for stratum in sorted(sizes)}
    remaining = dict(sizes)
    per_type: Counter[int] = Counter()
    per_locale: Counter[int] = Counter()
    picks: list[tuple[int, int]] = []
    while len(picks) < size and any(remaining.values()):
        stratum = min(
            (s for s, left in remaining.items() if left),
            key=lambda s: (
                max(per_type[s[0]], per_locale[s[1]]),
                per_type[s[0]] + per_locale[s[1]],
                tiebreak[s],
            ),
        )
        picks.append(stratum)
        remaining[stratum] -= 1
        per_type[stratum[0]] += 1
        per_locale[stratum[1]] += 1
    return picks


def choose_sample(run_id: int, size: int) -> list[int]:
    """Unit ids of the canary sample of a fully enumerated run."""
    run = Run.objects.get(pk=run_id)
    rows = list(
        Unit.objects.filter(run_id=run_id)
        .order_by("position", "target_locale_id")
        .values_list("pk", "content_type_id", "target_locale_id")
    )
    chosen: list[int] = []
    for pool in unit_ids_by_need(run):
        if len(chosen) < size:
            in_pool = [row for row in rows if row[0] in pool]
            chosen.extend(sample_of(in_pool, size - len(chosen), seed=run_id))
    return sorted(chosen)


def sample_of(rows: list[UnitRow], size: int, seed: int) -> list[int]:
    """A stratified sample of ``size`` of these units (all of them if they are fewer)."""
    picks = plan_picks(stratum_sizes(rows), size, seed=seed)
    rng = random.Random(f"offsets:{seed}")
    chosen: list[int] = []
    for (ct, loc), count in Counter(picks).items():
        ids = [pk for pk, row_ct, row_loc in rows if (row_ct, row_loc) == (ct, loc)]
        chosen.extend(rng.sample(ids, count))
    return chosen


def promote_canary_sample(run: Run) -> int:
    """Turn the sampled units of a canary run into pending work; returns how many."""
    promoted = 0
    sample = choose_sample(run.pk, run.canary_size or 0)
    for unit_id in [*ancestor_units(run, sample), *sample]:
        try:
            with transaction.atomic():
                promoted += Unit.objects.filter(pk=unit_id).update(
                    status=UnitStatus.PENDING, error_code=""
                )
        except IntegrityError:  # in flight in another run meanwhile
            Unit.objects.filter(pk=unit_id).update(
                error_code=ErrorCode.DUPLICATE_IN_FLIGHT,
                error_message=DUPLICATE_MESSAGE,
                finished_at=timezone.now(),
            )
    return promoted


def ancestor_units(run: Run, unit_ids: list[int]) -> list[int]:
    """Units of the run for the ancestors of sampled pages, in the same locales.

    A sampled page can only be written under its parent's translation, so a canary also
    translates (as drafts) the parents it needs, instead of failing the sampled page. Parents
    already translated in that locale are left out.
    """
    page_type_ids = {
        ct.pk
        for ct in ContentType.objects.filter(
            pk__in=Unit.objects.filter(pk__in=unit_ids).values("content_type_id")
        )
        if issubclass(ct.model_class() or object, Page)
    }
    sampled = Unit.objects.filter(pk__in=unit_ids, content_type_id__in=page_type_ids)
    paths = dict(
        Page.objects.filter(pk__in=[int(u.object_id) for u in sampled]).values_list("pk", "path")
    )
    wanted: set[tuple[str, int]] = set()
    for unit in sampled:
        path = paths.get(int(unit.object_id), "")
        for end in range(2 * Page.steplen, len(path), Page.steplen):
            wanted.add((path[:end], unit.target_locale_id))
    if not wanted:
        return []
    ancestor_keys = dict(
        Page.objects.filter(path__in={p for p, _ in wanted}).values_list("path", "translation_key")
    )
    keys = {(ancestor_keys[p], locale) for p, locale in wanted if p in ancestor_keys}
    keys -= translated_pages(keys)  # a parent already translated has nothing to show
    candidates = Unit.objects.filter(
        run_id=run.pk,
        object_key__in={key for key, _ in keys},
        status=UnitStatus.SKIPPED,
        error_code=ErrorCode.CANARY_NOT_SAMPLED,
    ).order_by("position")
    return [u.pk for u in candidates if (u.object_key, u.target_locale_id) in keys]


def translated_pages(keys: set[tuple[Any, int]]) -> set[tuple[Any, int]]:
    """The (translation key, locale) pairs that have a page (not an alias)."""
    found = Page.objects.filter(
        translation_key__in={key for key, _ in keys},
        locale_id__in={locale for _, locale in keys},
        alias_of__isnull=True,
    ).values_list("translation_key", "locale_id")
    return set(found) & keys
