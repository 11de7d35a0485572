"""The runs listing: newest first, with counts annotated in one query per page of runs."""

from __future__ import annotations

from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from wagtail.admin.ui.tables import Column, DateColumn, TitleColumn
from wagtail.admin.views import generic

from ... import api
from ...models import Run
from ...runs.spend import annotate_spend
from ..columns import (
    ProgressColumn,
    RunStatusColumn,
    RunTable,
    StartedByColumn,
    UnitCountsColumn,
    canary_label,
    run_title,
    scope_summary,
    spend_summary,
    translators_summary,
)
from ..filters import RunFilterSet
from ..permissions import run_permission_policy
from ..progress import AnnotatedRun, annotate_progress
from .mixins import ManageRunsRequiredMixin
from .review import ReviewCountColumn


class RunIndexView(ManageRunsRequiredMixin, generic.IndexView):
    permission_policy = run_permission_policy
    filterset_class = RunFilterSet
    page_title = _("Bulk translation")
    add_item_label = _("New run")
    template_name = "wagtail_bulk_translate/runs/index.html"
    results_template_name = "wagtail_bulk_translate/runs/index_results.html"
    table_class = RunTable
    list_per_page = 20

    @property
    def list_display(self) -> list[Column]:
        return [
            TitleColumn(
                "title",
                label=_("Run"),
                accessor=run_title,
                get_url=self.get_inspect_url,
                # Many columns share 1280 px: without this the title wraps letter by letter.
                link_attrs={"style": "white-space: nowrap", "data-bt-run-title": ""},
            ),
            RunStatusColumn(),
            ProgressColumn(),
            UnitCountsColumn(),
            ReviewCountColumn(),
            Column("spend", label=_("Spend"), accessor=spend_summary),
            Column("translators", label=_("Translator"), accessor=translators_summary),
            Column("get_mode_display", label=_("Mode")),
            Column("canary", label=_("Canary"), accessor=canary_label),
            Column("scope", label=_("Scope"), accessor=scope_summary),
            StartedByColumn(),
            DateColumn("created_at", label=_("Started"), sort_key="created_at"),
        ]

    def get_base_queryset(self) -> QuerySet[AnnotatedRun]:
        runs = Run.objects.select_related("source_locale", "created_by").prefetch_related(
            "target_locales"
        )
        return api.annotate_review_counts(annotate_spend(annotate_progress(runs)))

    def get_inspect_url(self, instance: Run) -> str:
        return reverse(self.inspect_url_name, args=(instance.pk,))
