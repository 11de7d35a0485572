"""Benchmark 6: the coordinator's peak memory at N pages and at 10 N pages.

The coordinator enumerates the whole site into every target locale, in process, under
tracemalloc; then 9 N plain pages are added with bulk inserts (seeding them one by one would
take longer than the whole benchmark) and it enumerates again. A warm-up run first fills
Django's caches so that neither measurement pays for them.
"""

from __future__ import annotations

import tracemalloc
import uuid

from .harness import (
    Config,
    Result,
    content_pages,
    enumerate_in_process,
    pages_scope,
    start_bulk_run,
)

TARGET = 1.3
BULK_BATCH = 2000


def run(config: Config) -> list[Result]:
    from wagtail.models import Locale

    from wagtail_bulk_translate.api import whole_site_scope

    coordinator_peak(pages_scope(content_pages(1)), config.targets)  # warm-up
    source = Locale.objects.get(language_code="en")
    small_units, small = coordinator_peak(whole_site_scope(source), config.targets)
    add_plain_pages(9 * config.pages, source)
    large_units, large = coordinator_peak(whole_site_scope(source), config.targets)
    return [
        Result(
            "6 coordinator memory",
            "peak traced KiB, 10 N vs N pages",
            round(large / 1024, 1),
            round(small / 1024, 1),
            f"ratio ≤ {TARGET}",
            large <= TARGET * small,
            f"N = {config.pages} pages: {small_units} units; 10 N: {large_units} units",
        )
    ]


def coordinator_peak(scope: object, targets: list[str]) -> tuple[int, int]:
    """(units created, peak traced bytes) of coordinating a run until enumeration is done."""
    from wagtail_bulk_translate.models import Unit

    run = start_bulk_run(scope, targets)
    tracemalloc.start()
    try:
        enumerate_in_process(run.pk)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Out of flight, so the next run may enumerate the same objects.
    units = Unit.objects.filter(run=run).update(status="cancelled")
    return units, peak


def add_plain_pages(count: int, source: object) -> None:
    """``count`` plain Wagtail pages under a new section of the home page, in bulk."""
    from django.contrib.contenttypes.models import ContentType
    from wagtail.models import Page

    home = Page.objects.get(depth=2, locale=source)
    section = home.add_child(instance=Page(title="Bulk section", slug="bulk-section"))
    content_type = ContentType.objects.get_for_model(Page)
    pages = [
        Page(
            title=f"Plain page {number}",
            draft_title=f"Plain page {number}",
            slug=f"plain-page-{number}",
            path=Page._get_path(section.path, section.depth + 1, number),
            depth=section.depth + 1,
            numchild=0,
            url_path=f"{section.url_path}plain-page-{number}/",
            locale_id=section.locale_id,
            translation_key=uuid.uuid4(),
            content_type=content_type,
            live=True,
        )
        for number in range(1, count + 1)
    ]
    Page.objects.bulk_create(pages, batch_size=BULK_BATCH)
    Page.objects.filter(pk=section.pk).update(numchild=count)
