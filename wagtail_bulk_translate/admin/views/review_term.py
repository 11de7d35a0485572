"""Add a glossary term and translate again, in one flow, from a flagged translation.

The form is pre-filled with the term a check flagged (and its translation into the unit's
language, when the glossary has one): the editor corrects the translation, or marks the term
never to be translated, and saves; the term is added (or its translation into that language
replaced) and a one-unit run translates the object again with it. Then back to the queue.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from wagtail.admin import messages
from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin

from ... import api
from ...models import GlossaryTranslation, ReviewState, UnitReview
from ..objects import objects_of_units, title
from ..permissions import can_edit_object
from .mixins import ManageRunsRequiredMixin, forbidden


def queue_url(run_id: int | None = None) -> str:
    url = reverse("wagtail_bulk_translate_review:index")
    return f"{url}?run={run_id}" if run_id else url


class ReviewTermForm(forms.Form):
    source_term = forms.CharField(
        label=gettext_lazy("Term"),
        max_length=255,
        help_text=gettext_lazy("As it is written in the source text."),
    )
    target_term = forms.CharField(
        label=gettext_lazy("Translation"),
        max_length=255,
        required=False,
        help_text=gettext_lazy("How the term is always translated into this language."),
    )
    never_translate = forms.BooleanField(
        label=gettext_lazy("Never translate"),
        required=False,
        help_text=gettext_lazy("A brand or product name: it stays as written in every language."),
    )
    case_sensitive = forms.BooleanField(label=gettext_lazy("Case sensitive"), required=False)

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if not cleaned.get("never_translate") and not (cleaned.get("target_term") or "").strip():
            self.add_error(
                "target_term", _("Give the translation, or mark the term never to be translated.")
            )
        return cleaned


def flagged_term(review: UnitReview) -> dict[str, str]:
    """The first term a check flagged, with its translation into the unit's language if any."""
    term = next((flag["term"] for flag in review.flags if flag.get("term")), "")
    if not term:
        return {}
    unit = review.unit
    translation = GlossaryTranslation.objects.filter(
        term__source_locale_id=unit.run.source_locale_id,
        term__source_term=term,
        target_locale_id=unit.target_locale_id,
    ).first()
    return {"source_term": term, "target_term": translation.target_term if translation else ""}


class ReviewTermView(ManageRunsRequiredMixin, WagtailAdminTemplateMixin, View):
    template_name = "wagtail_bulk_translate/review/add_term.html"
    page_title = gettext_lazy("Add a term and translate again")
    header_icon = "openquote"

    def get_breadcrumbs_items(self) -> list[dict[str, Any]]:
        queue = {"url": queue_url(self.review.unit.run_id), "label": _("Translations to review")}
        return [*self.breadcrumbs_items, queue, {"url": "", "label": self.page_title}]

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        try:
            self.review = api.review_of(kwargs["unit_id"])
        except api.BulkTranslateError as err:
            messages.error(request, str(err))
            return redirect(queue_url())
        if self.review.state != ReviewState.PENDING:
            messages.error(
                request,
                _("Unit #%(unit)d is not waiting for review.") % {"unit": kwargs["unit_id"]},
            )
            return redirect(queue_url(self.review.unit.run_id))
        self.found = objects_of_units([self.review.unit])[self.review.unit_id]
        if not can_edit_object(request.user, self.found.target):
            return forbidden(request)
        return super().dispatch(request, *args, **kwargs)

    def get(self, request: HttpRequest, unit_id: int) -> HttpResponse:
        return self.render(ReviewTermForm(initial=flagged_term(self.review)))

    def post(self, request: HttpRequest, unit_id: int) -> HttpResponse:
        form = ReviewTermForm(request.POST)
        if not form.is_valid():
            return self.render(form, status=400)
        try:
            term, run = api.retranslate_with_term(unit_id, **form.cleaned_data, user=request.user)
        except api.BulkTranslateError as err:
            form.add_error(None, str(err))
            return self.render(form, status=400)
        messages.success(
            request,
            _("“%(term)s” is in the glossary; unit #%(unit)d is being translated again in run "
              "#%(run)d.") % {"term": term.source_term, "unit": unit_id, "run": run.pk},
        )  # fmt: skip
        return redirect(queue_url(self.review.unit.run_id))

    def render(self, form: ReviewTermForm, status: int = 200) -> HttpResponse:
        unit = self.review.unit
        context = self.get_context_data(
            form=form,
            review=self.review,
            source_title=title(self.found.source),
            locale=unit.target_locale,
            back_url=queue_url(unit.run_id),
        )
        return self.render_to_response(context, status=status)
