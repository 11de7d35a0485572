"""The dashboard panel: runs in progress (their bars follow them live, through the run page's
status poller, and say when no worker is running), the last finished run, the coverage report."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import ngettext
from wagtail.admin.ui.components import Component

from ..api import worker_command
from ..engine.ledger import billing
from ..models import Run, RunStatus
from ..runs.profile_spend import spend_by_profile
from ..runs.spend import annotate_spend, annotated_spend_text, spend_report
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
                run.profile_spend_text = profile_spend_text(run)  # type: ignore[attr-defined]
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


def profile_spend_text(run: Run) -> str:
    """What each translator profile of a run of several cost ("DeepL Pro: 1,234 characters ·
    GPT: 0.0420 EUR"); "" for a run of one profile (no query then)."""
    profiles = {pin.get("profile") for pin in (run.locale_translators or {}).values()}
    if len(profiles) < 2:
        return ""
    codes = dict(run.target_locales.values_list("pk", "language_code"))
    parts = []
    for row in spend_by_profile(run, codes, billing(run), spend_report(run)):
        if row["spend"]:
            spent = f"{row['spend']['cost']} {row['spend']['currency']}"
        else:
            n = row["characters_sent"]
            spent = ngettext("%(n)s character", "%(n)s characters", n) % {"n": f"{n:,}"}
        parts.append(f"{row['label']}: {spent}")
    return " · ".join(parts)
