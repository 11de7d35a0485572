"""The state of the DeepL glossaries (one row per language pair) and the "Sync now" action."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from wagtail.admin import messages
from wagtail.admin.ui.tables import Column, DateColumn, NumberColumn
from wagtail.admin.views import generic
from wagtail.admin.widgets.button import HeaderButton

from ... import api
from ...models import DeepLGlossary, SyncStatus
from ..views.mixins import ManageRunsRequiredMixin
from .log_actions import SYNC_REQUESTED, log_glossary_action

PROBLEMS = (SyncStatus.FAILED, SyncStatus.UNSUPPORTED)


def status_cell(row: DeepLGlossary) -> str:
    """The status, with DeepL's message for a failed or unsupported pair (never hidden)."""
    if row.status in PROBLEMS:
        return format_html(
            '<span class="w-status w-status--label" data-bt-sync-problem="{}">{}</span> {}',
            row.status,
            row.get_status_display(),
            row.message,
        )
    return format_html(
        '<span data-bt-sync-status="{}">{}</span>', row.status, row.get_status_display()
    )


class DeepLGlossaryIndexView(ManageRunsRequiredMixin, generic.IndexView):
    page_title = gettext_lazy("DeepL glossaries")

    def get_base_queryset(self) -> QuerySet[DeepLGlossary]:
        return DeepLGlossary.objects.select_related("source_locale", "target_locale").order_by(
            "source_locale__language_code", "target_locale__language_code"
        )

    @property
    def list_display(self) -> list[Column]:
        return [
            Column("pair", label=gettext_lazy("Languages"), accessor=str),
            Column("status", label=gettext_lazy("Status"), accessor=status_cell),
            NumberColumn("entry_count", label=gettext_lazy("Entries")),
            Column("glossary_id", label=gettext_lazy("DeepL glossary id")),
            DateColumn("synced_at", label=gettext_lazy("Last sync")),
        ]

    @cached_property
    def header_buttons(self) -> list[HeaderButton]:
        return [
            HeaderButton(
                gettext_lazy("Sync now"),
                url=reverse("wagtail_bulk_translate_deepl_glossaries:sync"),
                icon_name="resubmit",
                attrs={"data-bt-sync-now": ""},
            )
        ]


class SyncNowView(ManageRunsRequiredMixin, View):
    """Queue a sync of every pair (GET asks for confirmation; the sync needs a POST)."""

    http_method_names = ["get", "post"]

    def get(self, request: HttpRequest) -> HttpResponse:
        return TemplateResponse(request, "wagtail_bulk_translate/glossary/sync_confirm.html")

    def post(self, request: HttpRequest) -> HttpResponse:
        api.glossary_changed(check_remote=True)
        for row in DeepLGlossary.objects.all():
            log_glossary_action(row, SYNC_REQUESTED, request.user)
        messages.success(request, _("The DeepL glossaries will be synced in the background."))
        return redirect("wagtail_bulk_translate_deepl_glossaries:index")
