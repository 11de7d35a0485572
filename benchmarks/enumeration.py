"""Benchmark 1: the coordinator's enumeration against a naive coordinator.

Ours: the whole site into every target locale, coordinated in process until enumeration is
done. Naive: for the same (object, locale) pairs — handed over for free, so its figure leaves
out finding them — insert one unit, read it back and queue its task, each in its own
transaction.
"""

from __future__ import annotations

from django.db import transaction
from wagtail.models import Locale

from .harness import Config, Result, enumerate_in_process, measure, rounded, start_bulk_run

TARGET_SPEEDUP = 20
TARGET_QUERIES_PER_UNIT = 0.05


def run(config: Config) -> list[Result]:
    from wagtail_bulk_translate.api import whole_site_scope
    from wagtail_bulk_translate.models import Unit
    from wagtail_bulk_translate.scope.enumeration import iter_scope

    source = Locale.objects.get(language_code="en")
    scope = whole_site_scope(source)
    ours_run = start_bulk_run(scope, config.targets)

    ours = measure(lambda: enumerate_in_process(ours_run.pk))
    units = Unit.objects.filter(run=ours_run).count()
    ours.units = units
    # Out of flight, so the naive coordinator may insert units for the same objects.
    Unit.objects.filter(run=ours_run).update(status="cancelled")

    naive_run = start_bulk_run(scope, config.targets)
    objects = list(iter_scope(scope, source))
    locales = list(Locale.objects.filter(language_code__in=config.targets))
    naive = measure(lambda: naive_coordinator(naive_run.pk, objects, locales), units)

    speedup = naive.seconds / ours.seconds
    return [
        Result(
            "1 enumeration",
            "seconds per 1,000 units",
            rounded(1000 * ours.seconds / units, 4),
            rounded(1000 * naive.seconds / units, 4),
            f"≥ {TARGET_SPEEDUP}x faster (ratio ≤ {1 / TARGET_SPEEDUP:.2f})",
            speedup >= TARGET_SPEEDUP,
            f"{units} units; {speedup:.1f}x faster than the naive coordinator",
        ),
        Result(
            "1 enumeration",
            "queries per unit",
            rounded(ours.queries_per_unit, 4),
            rounded(naive.queries_per_unit, 2),
            f"ours ≤ {TARGET_QUERIES_PER_UNIT}",
            ours.queries_per_unit <= TARGET_QUERIES_PER_UNIT,
            f"{ours.queries} queries for {units} units",
        ),
    ]


def naive_coordinator(run_id: int, objects: list, locales: list) -> None:
    from wagtail_bulk_translate import schedule
    from wagtail_bulk_translate.models import Unit

    position = 0
    for scoped in objects:
        for locale in locales:
            position += 1
            with transaction.atomic():
                unit = Unit.objects.create(
                    run_id=run_id,
                    position=position,
                    content_type_id=scoped.content_type_id,
                    object_id=scoped.object_id,
                    object_key=scoped.object_key,
                    target_locale=locale,
                )
            with transaction.atomic():
                Unit.objects.get(pk=unit.pk)
            with transaction.atomic():
                schedule.configured("process_units").enqueue(run_id)
