"""CSV export and import of the glossary (the format is in ``glossary/csv_io.py``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from wagtail.admin import messages

from ... import api
from ...models import GlossaryTerm
from ..views.mixins import ManageRunsRequiredMixin
from .log_actions import IMPORTED, log_glossary_action

MAX_UPLOAD_BYTES = 5 * 1024 * 1024


class GlossaryImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("CSV file"),
        help_text=gettext_lazy(
            "Columns: source_locale, term, case_sensitive, never_translate, target_locale, "
            "translation; one row per term and target locale. Terms are added or updated, "
            "never deleted."
        ),
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(_("The file is larger than 5 MB."))
        return upload


class GlossaryExportView(ManageRunsRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        response = HttpResponse(
            api.export_csv(api.export_queryset()), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="glossary.csv"'
        return response


class GlossaryImportView(ManageRunsRequiredMixin, View):
    template_name = "wagtail_bulk_translate/glossary/import.html"

    def get(self, request: HttpRequest) -> HttpResponse:
        return self.render(request, GlossaryImportForm())

    def post(self, request: HttpRequest) -> HttpResponse:
        form = GlossaryImportForm(request.POST, request.FILES)
        if not form.is_valid():
            return self.render(request, form)
        try:
            summary = api.import_csv(form.cleaned_data["file"].read())
        except api.GlossaryImportError as err:
            return self.render(request, form, errors=err.errors, status=400)
        self.log_import(request, summary, form.cleaned_data["file"].name)
        messages.success(
            request,
            _(
                "Imported the glossary: %(created)d terms added, %(updated)d updated, "
                "%(written)d translations written."
            )
            % {
                "created": summary.terms_created,
                "updated": summary.terms_updated,
                "written": summary.translations_written,
            },
        )
        return redirect("wagtail_bulk_translate_glossary:index")

    def log_import(self, request: HttpRequest, summary: api.ImportSummary, name: str) -> None:
        for term in summary.terms:
            log_glossary_action(term, IMPORTED, request.user, file=name)

    def render(
        self,
        request: HttpRequest,
        form: GlossaryImportForm,
        errors: list[str] | None = None,
        status: int = 200,
    ) -> HttpResponse:
        context = {"form": form, "errors": errors or [], "model_opts": GlossaryTerm._meta}
        return TemplateResponse(request, self.template_name, context, status=status)
