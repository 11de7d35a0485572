"""Deterministic, stratified canary sampling.

The sample is seeded by the run id, so re-running the sampler picks the same units. Strata are
(content type, target locale) pairs; each pick goes to the stratum whose content type and locale
have been picked least, so every content type and every locale is represented before any of
them gets a second pick.
"""

from __future__ import annotations

import random
from collections import Counter

from django.db.models import Count

from ..models import Unit


def stratum_sizes(run_id: int) -> dict[tuple[int, int], int]:
    rows = (
        Unit.objects.filter(run_id=run_id)
        .values_list("content_type_id", "target_locale_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {(ct, loc): n for ct, loc, n in rows}


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
    sizes = stratum_sizes(run_id)
    picks = plan_picks(sizes, size, seed=run_id)
    rng = random.Random(f"offsets:{run_id}")
    chosen: list[int] = []
    for (ct, loc), count in Counter(picks).items():
        ids = list(
            Unit.objects.filter(run_id=run_id, content_type_id=ct, target_locale_id=loc)
            .order_by("position")
            .values_list("pk", flat=True)
        )
        chosen.extend(rng.sample(ids, count))
    return sorted(chosen)
