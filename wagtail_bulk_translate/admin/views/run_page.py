"""The run page (the viewset's inspect view) and the JSON status its poller reads.

Both read a fixed number of grouped queries whatever the number of units; the failures table
is paginated and loads its objects in bulk per content type.
"""

from __future__ import annotations

from typing import Any, cast

from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet
from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View
from wagtail.admin.views import generic

from ...api import ErrorCode, revert_summary, task_failure_note, worker_command
from ...engine.batch_poll import waiting_summary
from ...engine.ledger import billing
from ...models import Run, RunStatus, Unit, UnitStatus
from ...runs.controls import NOT_PERMITTED
from ...runs.profile_spend import spend_by_profile
from ...runs.spend import bills_by_token, spend_report
from ...runs.summary import glossary_warnings
from ..actions import ACTIONS, allowed_actions
from ..columns import run_title
from ..objects import edit_url, objects_of_units, title
from ..permissions import run_permission_policy
from ..progress import RunReport, run_report
from ..retry_form import RetryForm
from .mixins import ManageRunsRequiredMixin
from .review import review_count_context

FAILURES_PER_PAGE = 25
REVERT_REFUSALS_SHOWN = 50
WORKERS_DOCS_URL = "https://pypi.org/project/wagtail-bulk-translate/#workers-in-production"


def load_run(pk: int) -> Run:
    return get_object_or_404(
        Run.objects.select_related("source_locale", "created_by", "promoted_from"), pk=pk
    )


def duration_label(seconds: int | None) -> str:
    """ "about 1 second", "about 5 minutes", "about 1.5 hours": rounded, in words."""
    if seconds is None:
        return ""
    if seconds < 90:
        n = max(seconds, 1)
        return ngettext("about %(n)d second", "about %(n)d seconds", n) % {"n": n}
    if seconds < 90 * 60:
        n = round(seconds / 60)
        return ngettext("about %(n)d minute", "about %(n)d minutes", n) % {"n": n}
    hours = round(seconds / 3600, 1)
    if hours.is_integer():
        return ngettext("about %(n)d hour", "about %(n)d hours", int(hours)) % {"n": hours}
    return _("about %(n).1f hours") % {"n": hours}


def status_payload(run: Run, report: RunReport) -> dict[str, Any]:
    """What the run page's poller updates: JSON, no HTML (the page escapes what it inserts)."""
    progress = report.progress
    return {
        "id": run.pk,
        "status": run.status,
        "status_label": _("Reverting…") if run.is_reverting else run.get_status_display(),
        # The page keeps polling while a revert runs, then offers the final report.
        "is_finished": run.is_settled,
        **progress.as_dict(),
        "by_locale": report.by_locale,
        "by_model": report.by_model,
        "model_names": report.model_names,
        "errors": report.errors,
        "outcomes": report.outcomes,
        "estimated_characters": run.estimated_characters,
        "spend": spend_report(run),
        # Tokens and cost only, for a translator that pays by the token.
        "bills_by_token": bills_by_token(run),
        "glossary_warnings": glossary_warnings(run),
        "eta_seconds": report.eta_seconds,
        "eta_label": duration_label(report.eta_seconds),
        "no_worker": report.no_worker,
        "task_failing": task_failure_note(run),
        "actions": allowed_actions(run, progress),
        "error_message": run.error_message,
    }


class FailuresPage(Page[Unit]):
    """A page of the failures table: Django's page of units, plus the rows the template shows."""

    rows: list[dict[str, Any]]


class FailuresPaginator(Paginator):
    def _get_page(self, *args: Any, **kwargs: Any) -> FailuresPage:
        return FailuresPage(*args, **kwargs)


class RunStatusView(ManageRunsRequiredMixin, View):
    http_method_names = ["get"]

    def get(self, request: HttpRequest, pk: int) -> JsonResponse:
        run = load_run(pk)
        response = JsonResponse(status_payload(run, run_report(run)))
        response["Cache-Control"] = "no-store"
        return response


class RunPageView(ManageRunsRequiredMixin, generic.InspectView):
    permission_policy = run_permission_policy
    template_name = "wagtail_bulk_translate/runs/run_page.html"
    header_icon = "globe"

    def get_object(self, queryset: QuerySet[Run] | None = None) -> Run:
        return load_run(self.pk)

    def get_fields(self) -> list[str]:
        return []

    def get_page_title(self) -> str:
        return run_title(self.object)

    def get_page_subtitle(self) -> str:
        return ""

    def get_breadcrumbs_items(self) -> list[dict[str, Any]]:
        return [
            *self.breadcrumbs_items,
            {"url": reverse("wagtail_bulk_translate:index"), "label": _("Bulk translation")},
            {"url": "", "label": self.get_page_title()},
        ]

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        run = self.object
        report = run_report(run)
        payload = status_payload(run, report)
        context.update(
            run=run,
            report=report,
            progress=report.progress,
            status=payload,
            allowed={action: action in payload["actions"] for action in ACTIONS},
            target_codes=sorted(run.target_locales.values_list("language_code", flat=True)),
            failures=self.failures_page(run),
            error_labels=dict(ErrorCode.choices),
            retry_form=RetryForm(report=report),
            workers_docs_url=WORKERS_DOCS_URL,
            worker_command=worker_command(),
            promotion=run.promotions.order_by("pk").first() if run.is_canary else None,
            status_counts=[
                (value, label, report.progress.counts[value]) for value, label in UnitStatus.choices
            ],
            breakdowns=[
                ("by_locale", _("Target locale"), breakdown_rows(report.by_locale, {})),
                ("by_model", _("Type"), breakdown_rows(report.by_model, report.model_names)),
            ],
            is_active=run.status in RunStatus.active,
            provider_batches=waiting_summary(run.pk),
            profile_spend=profile_spend(run),
            **review_count_context(run.pk),
        )
        if run.reverted_at:
            context.update(revert=revert_summary(run), revert_refusals=revert_refusals(run))
        return context

    def failures_page(self, run: Run) -> FailuresPage:
        # Units the run's editor may not write are listed with the failures: someone must act.
        units = (
            run.units.filter(Q(status=UnitStatus.FAILED) | NOT_PERMITTED)
            .select_related("target_locale")
            .order_by("position", "target_locale_id")
        )
        paginator = FailuresPaginator(units, FAILURES_PER_PAGE)
        page = cast(FailuresPage, paginator.get_page(self.request.GET.get("failures")))
        objects = objects_of_units(page.object_list)
        user = self.request.user
        page.rows = [
            {
                "unit": unit,
                "source_title": title(objects[unit.pk].source) or f"#{unit.object_id}",
                "source_url": edit_url(objects[unit.pk].source, user),
                "target_url": edit_url(objects[unit.pk].target, user),
                "reason": ErrorCode(unit.error_code).label if unit.error_code else "",
            }
            for unit in page.object_list
        ]
        return page


def breakdown_rows(table: dict[str, dict[str, int]], names: dict[str, str]) -> list[list]:
    """[name, count per unit status...] rows, statuses in UnitStatus order (as the JS)."""
    return [
        [names.get(key, key), *(row[s] for s in UnitStatus.values)] for key, row in table.items()
    ]


def revert_refusals(run: Run) -> list[dict[str, str]]:
    units = list(
        run.units.exclude(revert_refused="")
        .select_related("target_locale")
        .order_by("position")[:REVERT_REFUSALS_SHOWN]
    )
    objects = objects_of_units(units)
    return [
        {
            "title": title(objects[u.pk].target) or title(objects[u.pk].source),
            "locale": u.target_locale.language_code,
            "reason": u.revert_refused,
        }
        for u in units
    ]


def profile_spend(run: Run) -> list[dict[str, Any]]:
    """Per translator profile: what the run sent it and what it cost (a row per profile)."""
    codes = dict(run.target_locales.values_list("pk", "language_code"))
    return spend_by_profile(run, codes, billing(run), spend_report(run))
