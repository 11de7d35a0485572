"""CSV export and import of the glossary (the format is in ``glossary/csv_io.py``).

The upload is checked at once (bad rows are listed, nothing stored); a good file is imported
in the background (``glossary/imports.py``) and its page shows the result once it is done.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views import View
from wagtail.admin import messages

from ... import api
from ...models import GlossaryImport, GlossaryTerm
from ..views.mixins import ManageRunsRequiredMixin

# An export of the most terms a file may hold (50,000), with a few translations each, fits.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
# A file with thousands of bad rows lists the first ones only.
ERRORS_SHOWN = 100


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
            raise forms.ValidationError(_("The file is larger than 20 MB."))
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
        upload = form.cleaned_data["file"]
        try:
            record = api.queue_glossary_import(upload.read(), upload.name, request.user)
        except api.GlossaryImportError as err:
            return self.render(request, form, errors=err.errors, status=400)
        messages.success(
            request,
            ngettext(
                "%(rows)d row checked: importing it.",
                "%(rows)d rows checked: importing them.",
                record.rows,
            )
            % {"rows": record.rows},
        )
        return redirect("wagtail_bulk_translate_glossary:import_result", record.pk)

    def render(
        self,
        request: HttpRequest,
        form: GlossaryImportForm,
        errors: list[str] | None = None,
        status: int = 200,
    ) -> HttpResponse:
        context = {"form": form, "model_opts": GlossaryTerm._meta, **shown_errors(errors or [])}
        return TemplateResponse(request, self.template_name, context, status=status)


class GlossaryImportResultView(ManageRunsRequiredMixin, View):
    """What an import did, or that it is still going (the page reloads itself until done)."""

    template_name = "wagtail_bulk_translate/glossary/import_result.html"

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        record = get_object_or_404(GlossaryImport, pk=pk)
        context = {
            "record": record,
            "model_opts": GlossaryTerm._meta,
            **shown_errors(record.errors),
        }
        return TemplateResponse(request, self.template_name, context)


def shown_errors(errors: list[str]) -> dict[str, Any]:
    return {"errors": errors[:ERRORS_SHOWN], "more_errors": max(0, len(errors) - ERRORS_SHOWN)}
