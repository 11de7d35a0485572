"""Benchmark 7: the status API at 1,000 and at 100,000 units.

Two runs get their units with bulk inserts (a mix of statuses and error codes, no translation);
``api.run_summary`` and the admin's JSON status endpoint (``RunStatusView``, called through a
request factory as the run page's poller would) are timed on each: the median of several
calls after a warm-up, and the queries of one call.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

from .harness import Config, Result, content_pages, counting_queries, pages_scope, start_bulk_run

SMALL = 1_000
REPEATS = 5
TIME_TARGET = 2.0
STATUSES = [("succeeded", ""), ("succeeded", ""), ("skipped", "unchanged"), ("pending", ""),
            ("failed", "validation_error")]  # fmt: skip
BULK_BATCH = 5000


def run(config: Config) -> list[Result]:
    from django.contrib.auth import get_user_model
    from django.test import RequestFactory

    from wagtail_bulk_translate.admin.views.run_page import RunStatusView
    from wagtail_bulk_translate.api import run_summary
    from wagtail_bulk_translate.models import Run

    admin = get_user_model().objects.get(username="admin")
    status_view = RunStatusView.as_view()

    def endpoint(run_id: int) -> None:
        request = RequestFactory().get(f"/admin/bulk-translate/runs/{run_id}/status/")
        request.user = admin
        response = status_view(request, pk=run_id)
        assert response.status_code == 200, response.status_code

    def summary(run_id: int) -> None:
        run_summary(Run.objects.get(pk=run_id))

    sizes = (SMALL, config.status_units)
    runs = {size: run_with_units(size, config.targets) for size in sizes}
    versus = f"{sizes[1]:,} vs {sizes[0]:,} units"
    rows = []
    for label, call in (("api.run_summary", summary), ("admin status endpoint", endpoint)):
        small, large = (timed(call, runs[size]) for size in sizes)
        rows += [
            Result(f"7 status: {label}", f"queries per call, {versus}", large[0],
                   small[0], "same", large[0] == small[0]),
            Result(f"7 status: {label}", f"ms per call, {versus}",
                   round(large[1] * 1000, 2), round(small[1] * 1000, 2),
                   f"ratio ≤ {TIME_TARGET}", large[1] <= TIME_TARGET * small[1],
                   f"median of {REPEATS}"),
        ]  # fmt: skip
    return rows


def timed(call: Callable[[int], Any], run_id: int) -> tuple[int, float]:
    """(queries of one call, median seconds of ``REPEATS`` calls), after a warm-up call."""
    call(run_id)
    with counting_queries() as box:
        call(run_id)
    seconds = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        call(run_id)
        seconds.append(time.perf_counter() - started)
    return box[0], statistics.median(seconds)


def run_with_units(size: int, targets: list[str]) -> int:
    """A run whose ``size`` units are bulk-inserted: objects that need not exist."""
    from django.contrib.contenttypes.models import ContentType
    from wagtail.models import Locale, Page

    from wagtail_bulk_translate.models import Run, Unit

    run = start_bulk_run(pages_scope(content_pages(1)), targets)
    content_type = ContentType.objects.get_for_model(Page)
    locales = list(Locale.objects.filter(language_code__in=targets))
    units = []
    for position in range(size):
        status, error_code = STATUSES[position % len(STATUSES)]
        units.append(
            Unit(run=run, position=position, content_type=content_type,
                 object_id=str(1_000_000 + position), object_key=uuid.uuid4(),
                 target_locale=locales[position % len(locales)], status=status,
                 error_code=error_code, billed_characters=100 if status == "succeeded" else 0)
        )  # fmt: skip
    Unit.objects.bulk_create(units, batch_size=BULK_BATCH)
    Run.objects.filter(pk=run.pk).update(status="running", units_total=size, enumeration_done=True)
    return run.pk
