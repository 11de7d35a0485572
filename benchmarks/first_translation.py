"""Benchmark 2: a first translation against wagtail-localize's per-object path.

Both translate disjoint sets of ``sample`` pages of the same site with an instant translator
(no pipeline benefits from another's extraction): one locale, then three locales at once. Ours
runs in process with one worker's loop; the baseline does what an editor's buttons do, one
object and locale at a time.
"""

from __future__ import annotations

from .harness import (
    ALL_TARGETS,
    Config,
    Measure,
    Result,
    bulk_translate,
    content_pages,
    per_object_baseline,
)

ONE_LOCALE_TARGET = 0.5
THREE_LOCALES_TARGET = 0.25


def run(config: Config) -> list[Result]:
    sample = config.sample
    pages = content_pages(4 * sample)
    theirs_one, ours_one = pages[0::4], pages[1::4]
    theirs_three, ours_three = pages[2::4], pages[3::4]
    one = config.targets[:1]
    three = ALL_TARGETS[:3]
    return [
        *compare("2 first translation, 1 locale", bulk_translate(ours_one, one),
                 per_object_baseline(theirs_one, one), ONE_LOCALE_TARGET),
        *compare("2 first translation, 3 locales", bulk_translate(ours_three, three),
                 per_object_baseline(theirs_three, three), THREE_LOCALES_TARGET),
    ]  # fmt: skip


def compare(name: str, ours: Measure, baseline: Measure, target: float) -> list[Result]:
    notes = f"{ours.units} units each side"
    return [
        Result(name, "queries per unit", round(ours.queries_per_unit, 1),
               round(baseline.queries_per_unit, 1), f"ratio ≤ {target}",
               ours.queries_per_unit <= target * baseline.queries_per_unit, notes),
        Result(name, "ms per unit", round(ours.ms_per_unit, 1), round(baseline.ms_per_unit, 1),
               f"ratio ≤ {target}", ours.ms_per_unit <= target * baseline.ms_per_unit, notes),
    ]  # fmt: skip
