"""The translation coverage report (Reports menu): per content type and target locale, how many
objects are translated, outdated or missing, with buttons that pre-fill a new run.

The numbers come from :func:`wagtail_bulk_translate.api.coverage` (a few grouped queries
whatever the size of the site). The new-run form is pre-filled with GET parameters:
``?source=en&pages=<root id>&page_types=app.Model&snippets=app.Model&settings=app.Model&targets=fr
&mode=changed`` (a row of pages fills only its own page type);
mode "changed" translates what is missing or outdated and skips the rest at no cost.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import django_filters
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import URLPattern, path, reverse
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from wagtail.admin.filters import WagtailFilterSet
from wagtail.admin.menu import MenuItem
from wagtail.admin.ui.tables import Column
from wagtail.admin.views.reports import ReportView
from wagtail.admin.widgets import HeaderButton
from wagtail.models import Locale, Page

from .. import api
from ..models import Mode
from .forms import locale_choices
from .permissions import can_manage_runs
from .views.mixins import ManageRunsRequiredMixin
from .views.publish_drafts import PublishDraftsView

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class CoverageFilterSet(WagtailFilterSet):
    """Filters read by the view itself: the rows are computed, not a filtered queryset."""

    source = django_filters.ChoiceFilter(
        label=_("Source locale"),
        choices=locale_choices,
        empty_label=None,
        null_label=_("Default locale"),
        null_value="",
        method="keep",
    )
    target = django_filters.ChoiceFilter(
        label=_("Target locale"), choices=locale_choices, empty_label=_("All"), method="keep"
    )
    kind = django_filters.ChoiceFilter(
        label=_("Content"), choices=api.CoverageKind.choices, empty_label=_("All"), method="keep"
    )

    class Meta:
        model = Locale
        fields: list[str] = []

    def keep(self, queryset: QuerySet[Locale], name: str, value: str) -> QuerySet[Locale]:
        return queryset


class CountColumn(Column):
    """A count; ``None`` (not tracked for this model) shows as "unknown"."""

    cell_template_name = "wagtail_bulk_translate/reports/count_cell.html"


class OutdatedColumn(CountColumn):
    """The outdated count, with what outdated them besides edits (a glossary term, a style)."""

    cell_template_name = "wagtail_bulk_translate/reports/outdated_cell.html"


class DraftsColumn(Column):
    """Up-to-date translations not published yet, with the row's "Publish drafts" link."""

    cell_template_name = "wagtail_bulk_translate/reports/drafts_cell.html"


class TranslateRowColumn(Column):
    cell_template_name = "wagtail_bulk_translate/reports/translate_cell.html"


class CoverageReportView(ManageRunsRequiredMixin, ReportView):
    page_title = _("Translation coverage")
    header_icon = "globe"
    index_url_name = "wagtail_bulk_translate_coverage"
    index_results_url_name = "wagtail_bulk_translate_coverage_results"
    results_template_name = "wagtail_bulk_translate/reports/coverage_results.html"
    filterset_class = CoverageFilterSet
    paginate_by = 100
    list_export = [
        "name",
        "label",
        "locale",
        "total",
        "translated",
        "outdated",
        "missing",
        "drafts",
        "why_outdated",
    ]
    export_headings = {
        "name": _("Content type"),
        "label": _("Model"),
        "locale": _("Target locale"),
        "total": _("Source objects"),
        "translated": _("Translated"),
        "drafts": _("Of which drafts"),
        "outdated": _("Outdated"),
        "why_outdated": _("Outdated because"),
        "missing": _("Missing"),
    }
    columns = [
        Column("name", label=_("Content type")),
        Column("locale_name", label=_("Target locale")),
        CountColumn("total", label=_("Source objects")),
        CountColumn("translated_live", label=_("Up to date, live")),
        DraftsColumn("drafts", label=_("Drafts to publish")),
        OutdatedColumn("outdated", label=_("Outdated")),
        CountColumn("missing", label=_("Missing")),
        Column("percent_label", label=_("Up to date (%)")),
        TranslateRowColumn("translate_url", label=_("Action")),
    ]

    def get_filename(self) -> str:
        return f"translation-coverage-{datetime.date.today():%Y-%m-%d}"

    def filter_value(self, name: str) -> str:
        if self.filters and self.filters.is_valid():
            return self.filters.form.cleaned_data.get(name) or ""
        return ""

    @cached_property
    def source_locale(self) -> Locale:
        code = self.filter_value("source")
        return Locale.objects.filter(language_code=code).first() or Locale.get_default()

    @cached_property
    def rows(self) -> list[CoverageRow]:
        code = self.filter_value("target")
        targets = list(Locale.objects.filter(language_code=code)) if code else None
        rows = api.coverage(self.source_locale, targets)
        kind = self.filter_value("kind")
        return [CoverageRow(row, self) for row in rows if not kind or row.kind == kind]

    def get_queryset(self) -> list[CoverageRow]:
        return self.rows

    def get_filtered_queryset(self) -> list[CoverageRow]:
        return self.rows

    @cached_property
    def locale_names(self) -> dict[str, str]:
        return {locale.language_code: locale.get_display_name() for locale in Locale.objects.all()}

    @cached_property
    def page_roots(self) -> list[int]:
        """Every page tree of the source locale: pages rows translate them in "changed" mode."""
        roots = Page.objects.filter(depth=2, locale=self.source_locale, alias_of__isnull=True)
        return list(roots.values_list("pk", flat=True))

    def new_run_url(self, rows: list[api.CoverageRow]) -> str:
        """The new-run form pre-filled to translate what these rows miss or have outdated."""
        params: list[tuple[str, object]] = [("source", self.source_locale.language_code)]
        kinds = {row.kind for row in rows}
        if api.CoverageKind.PAGES in kinds:
            params += [("pages", pk) for pk in self.page_roots]
            # Only the page types of these rows, not every page of the trees.
            types = dict.fromkeys(row.label for row in rows if row.kind == api.CoverageKind.PAGES)
            params += [("page_types", label) for label in types]
        for kind in (api.CoverageKind.SNIPPETS, api.CoverageKind.SETTINGS):
            labels = dict.fromkeys(row.label for row in rows if row.kind == kind)
            params += [(kind, label) for label in labels]
        params += [("targets", code) for code in dict.fromkeys(row.locale for row in rows)]
        params.append(("mode", Mode.CHANGED))
        return reverse("wagtail_bulk_translate:add") + "?" + urlencode(params)

    def get_header_buttons(self) -> list[HeaderButton]:
        needing_work = [row.row for row in self.rows if row.needs_work]
        if not needing_work:
            return super().get_header_buttons()
        units = sum(row.units_needing_work for row in needing_work)
        button = HeaderButton(
            ngettext(
                "Translate what is missing or outdated (%(n)s translation)",
                "Translate what is missing or outdated (%(n)s translations)",
                units,
            )
            % {"n": units},
            url=self.new_run_url(needing_work),
            icon_name="globe",
            attrs={"data-bt-translate-missing": ""},
        )
        return [*super().get_header_buttons(), button]

    def get_context_data(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(*args, **kwargs)
        context["source_locale"] = self.source_locale
        context["all_current"] = bool(self.rows) and not any(row.needs_work for row in self.rows)
        return context


class CoverageRow:
    """A coverage row as the table shows it (with its own pre-filled new-run link)."""

    def __init__(self, row: api.CoverageRow, view: CoverageReportView) -> None:
        self.row = row
        self.view = view

    def __getattr__(self, name: str) -> Any:
        return getattr(self.row, name)

    @property
    def kind_label(self) -> StrOrPromise:
        return api.CoverageKind(self.row.kind).label

    @property
    def percent_label(self) -> str:
        percent = self.row.percent_translated
        return str(_("unknown")) if percent is None else str(percent)

    @property
    def publish_drafts_url(self) -> str:
        params = {
            "model": self.row.label,
            "source": self.view.source_locale.language_code,
            "target": self.row.locale,
        }
        return reverse("wagtail_bulk_translate_publish_drafts") + "?" + urlencode(params)

    @property
    def why_outdated(self) -> str:
        return "; ".join(self.row.outdated_reasons)

    @property
    def locale_name(self) -> str:
        return self.view.locale_names.get(self.row.locale) or self.row.locale

    @property
    def translate_url(self) -> str | None:
        return self.view.new_run_url([self.row]) if self.row.needs_work else None


class CoverageMenuItem(MenuItem):
    def is_shown(self, request: HttpRequest) -> bool:
        return can_manage_runs(request.user)


def coverage_urls() -> list[URLPattern]:
    return [
        path(
            "reports/translation-coverage/",
            CoverageReportView.as_view(),
            name="wagtail_bulk_translate_coverage",
        ),
        path(
            "reports/translation-coverage/publish-drafts/",
            PublishDraftsView.as_view(),
            name="wagtail_bulk_translate_publish_drafts",
        ),
        path(
            "reports/translation-coverage/results/",
            CoverageReportView.as_view(results_only=True),
            name="wagtail_bulk_translate_coverage_results",
        ),
    ]


def coverage_menu_item() -> CoverageMenuItem:
    return CoverageMenuItem(
        _("Translation coverage"),
        reverse("wagtail_bulk_translate_coverage"),
        name="translation-coverage",
        icon_name="globe",
        order=750,
    )
