"""The terms listing and its add, edit and delete views (Wagtail's generic views: they log
``wagtail.create``/``edit``/``delete``); each change queues a sync of the DeepL glossaries."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from wagtail.admin import messages
from wagtail.admin.ui.tables import BooleanColumn, Column, DateColumn, TitleColumn
from wagtail.admin.views import generic
from wagtail.admin.widgets.button import HeaderButton

from ... import api
from ...models import DeepLGlossary, GlossaryTerm, SyncStatus
from ..views.mixins import ManageRunsRequiredMixin


def translations_summary(term: GlossaryTerm) -> str:
    if term.never_translate:
        return str(_("Never translated"))
    return format_html_join(
        ", ",
        "{}: {}",
        sorted((t.target_locale.language_code, t.target_term) for t in term.translations.all()),
    )


def warn_of_sync_problems(request: HttpRequest) -> None:
    """Editors change terms here, not on the DeepL screen: tell them when a pair is not synced."""
    problems = DeepLGlossary.objects.filter(status__in=(SyncStatus.FAILED, SyncStatus.UNSUPPORTED))
    count = problems.count()
    if count:
        messages.warning(
            request,
            ngettext(
                "%(count)d language pair is not synced to DeepL.",
                "%(count)d language pairs are not synced to DeepL.",
                count,
            )
            % {"count": count},
            buttons=[
                messages.button(
                    reverse("wagtail_bulk_translate_deepl_glossaries:index"), _("See why")
                )
            ],
        )


class TermIndexView(ManageRunsRequiredMixin, generic.IndexView):
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not self.results_only:
            warn_of_sync_problems(request)
        return super().get(request, *args, **kwargs)

    def get_base_queryset(self) -> QuerySet[GlossaryTerm]:
        return (
            super()
            .get_base_queryset()
            .select_related("source_locale")
            .prefetch_related("translations__target_locale")
        )

    @property
    def list_display(self) -> list[Column]:
        return [
            TitleColumn(
                "source_term", label=_("Term"), get_url=self.get_edit_url, sort_key="source_term"
            ),
            Column("source_locale", label=_("Source language")),
            Column("translations", label=_("Translations"), accessor=translations_summary),
            BooleanColumn("never_translate", label=_("Never translate")),
            BooleanColumn("case_sensitive", label=_("Case sensitive")),
            DateColumn("updated_at", label=_("Updated"), sort_key="updated_at"),
        ]

    def get_edit_url(self, instance: GlossaryTerm) -> str:
        return reverse(self.edit_url_name, args=(instance.pk,))

    @cached_property
    def header_buttons(self) -> list[HeaderButton]:
        return [
            *super().header_buttons,
            HeaderButton(
                _("Import CSV"),
                url=reverse("wagtail_bulk_translate_glossary:import"),
                icon_name="upload",
                attrs={"data-bt-glossary-import": ""},
            ),
            HeaderButton(
                _("Export CSV"),
                url=reverse("wagtail_bulk_translate_glossary:export"),
                icon_name="download",
                attrs={"data-bt-glossary-export": ""},
            ),
        ]


class SyncAfterSaveMixin:
    """Queue a sync of the DeepL glossaries of the term's language once it is saved."""

    def save_instance(self) -> Any:
        instance = super().save_instance()  # type: ignore[misc]
        api.glossary_changed(instance.source_locale_id)
        return instance


class TermCreateView(ManageRunsRequiredMixin, SyncAfterSaveMixin, generic.CreateView):
    pass


class TermEditView(ManageRunsRequiredMixin, SyncAfterSaveMixin, generic.EditView):
    pass


class TermDeleteView(ManageRunsRequiredMixin, generic.DeleteView):
    def delete_action(self) -> None:
        source_locale_id = self.object.source_locale_id
        super().delete_action()
        api.glossary_changed(source_locale_id)
