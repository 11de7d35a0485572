"""Reports on a run: its summary, its units per locale and status, its error codes."""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.utils import timezone

from ..engine.janitor import keep_janitor_alive
from ..models import Run


def run_summary(run: Run) -> dict[str, Any]:
    """A JSON-serialisable report of a run (used by `bulk_translate status --json`).

    Someone is watching the run: if its janitor's chain died, this re-arms it.
    """
    keep_janitor_alive()
    run.refresh_from_db()
    totals = run.unit_totals()
    duration = None
    if run.started_at:
        end = run.finished_at or timezone.now()
        duration = round((end - run.started_at).total_seconds(), 1)
    return {
        "id": run.pk,
        "status": run.status,
        "mode": run.mode,
        "canary": run.is_canary,
        "canary_size": run.canary_size,
        "publish_policy": run.publish_policy,
        "source_locale": run.source_locale.language_code,
        "target_locales": sorted(run.target_locales.values_list("language_code", flat=True)),
        "enumeration_done": run.enumeration_done,
        "units_total": run.units_total,
        "units": run.unit_counts(),
        "units_by_locale": units_by_locale(run),
        "strings_translated": totals["strings_translated"],
        "billed_characters": totals["billed_characters"],
        "errors": error_breakdown(run),
        "created_at": run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "duration_seconds": duration,
        "error_code": run.error_code,
        "error_message": run.error_message,
    }


def units_by_locale(run: Run) -> dict[str, dict[str, int]]:
    """{locale code: {unit status: count}}, statuses without units left out."""
    rows = (
        run.units.values_list("target_locale__language_code", "status")
        .annotate(n=Count("pk"))
        .order_by()
    )
    result: dict[str, dict[str, int]] = {}
    for code, status, n in rows:
        result.setdefault(code, {})[status] = n
    return {code: result[code] for code in sorted(result)}


def error_breakdown(run: Run) -> dict[str, int]:
    rows = (
        run.units.exclude(error_code="")
        .values_list("error_code")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return dict(rows)
