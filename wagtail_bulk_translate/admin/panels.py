"""The dashboard panel: runs in progress (their bars follow them live, through the run page's
status poller, and say when no worker is running), the last finished run, the coverage report."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from wagtail.admin.ui.components import Component

from ..api import worker_command
from ..models import Run, RunStatus
from ..runs.spend import annotate_spend, annotated_spend_text
from .columns import live_status_attrs, run_title
from .permissions import can_manage_runs
from .progress import Progress, annotate_progress, has_no_worker
from .views.review import review_count_context

ACTIVE_SHOWN = 5
COVERAGE_URL_NAME = "wagtail_bulk_translate_coverage"


class RunsPanel(Component):
    name = "wagtail_bulk_translate_runs"
    template_name = "wagtail_bulk_translate/panels/runs.html"
    order = 150

    class Media:
        js = ["wagtail_bulk_translate/js/run-status.js"]

    def get_context_data(self, parent_context: dict[str, Any]) -> dict[str, Any]:
        runs = annotate_spend(annotate_progress(Run.objects.select_related("source_locale")))
        active = list(runs.filter(status__in=RunStatus.active)[:ACTIVE_SHOWN])
        last = runs.filter(status__in=RunStatus.terminal).order_by("-finished_at", "-pk").first()
        for run in [*active, last]:
            if run is not None:
                run.spend_text = annotated_spend_text(run)  # type: ignore[attr-defined]
        return {
            "active": [active_row(run) for run in active],
            "last": (last, Progress.from_annotated(last)) if last else None,
            "worker_command": worker_command(),
            "coverage_url": coverage_url(),
            "index_url": reverse("wagtail_bulk_translate:index"),
            "add_url": reverse("wagtail_bulk_translate:add"),
            **review_count_context(),
        }


def active_row(run: Any) -> dict[str, Any]:
    progress = Progress.from_annotated(run)
    return {
        "run": run,
        "title": run_title(run),
        "progress": progress,
        "no_worker": has_no_worker(run, progress),
        "live_attrs": live_status_attrs(run),
    }


def coverage_url() -> str | None:
    try:
        return reverse(COVERAGE_URL_NAME)
    except NoReverseMatch:  # the coverage report is not installed
        return None


def construct_homepage_panels(request: HttpRequest, panels: list[Component]) -> None:
    """The ``construct_homepage_panels`` hook: only for users who manage runs."""
    if can_manage_runs(request.user):
        panels.append(RunsPanel())
