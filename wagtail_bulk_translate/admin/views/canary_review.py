"""Canary review: every sampled unit, its source and its translated draft side by side.

Filtered by target locale and type and paginated (Wagtail's paginator), so a large sample stays
a page long; the strings are read for the units of the page only.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.generic import TemplateView
from wagtail.admin.paginator import WagtailPaginator
from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin
from wagtail.models import Page

from ... import api
from ...models import Run, Unit
from ..actions import can_promote
from ..forms import choice_field
from ..objects import edit_url, objects_of_units, title
from .mixins import ManageRunsRequiredMixin, RunSubpageMixin
from .run_page import load_run, run_title

SAMPLES_PER_PAGE = 10


def preview_url(target: models.Model | None) -> str | None:
    """Wagtail's preview of a page's latest revision (the canary's draft)."""
    if not isinstance(target, Page) or not target.latest_revision_id:
        return None
    try:
        return reverse(
            "wagtailadmin_pages:revisions_view", args=[target.pk, target.latest_revision_id]
        )
    except NoReverseMatch:
        return None


class CanaryReviewView(
    ManageRunsRequiredMixin, RunSubpageMixin, WagtailAdminTemplateMixin, TemplateView
):
    template_name = "wagtail_bulk_translate/runs/canary_review.html"
    page_title = gettext_lazy("Canary review")
    header_icon = "view"
    run: Run

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        self.run = load_run(pk)
        return super().get(request, pk=pk)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(run=self.run, run_title=run_title(self.run), can_promote=False)
        if not self.run.is_canary:
            return context
        units = api.canary_units(self.run.pk)
        form = SampleFilterForm(self.request.GET or None, units=units)
        if form.is_valid():
            units = api.canary_units(self.run.pk, **form.filters())
        paginator = WagtailPaginator(units, SAMPLES_PER_PAGE)
        page = paginator.get_page(self.request.GET.get("p"))
        context.update(
            can_promote=can_promote(self.run),
            filter_form=form,
            is_filtering=form.is_valid() and any(form.filters().values()),
            outcome=outcome_sentences(api.canary_outcome(self.run)),
            page_obj=page,
            paginator=paginator,
            elided_page_range=paginator.get_elided_page_range(page.number),
            samples=self.sample_rows(page.object_list),
        )
        return context

    def sample_rows(self, units: Any) -> list[dict[str, Any]]:
        units = list(units)
        objects = objects_of_units(units)
        user = self.request.user
        return [
            {
                "sample": sample,
                "source_title": title(objects[sample.unit_id].source),
                "source_url": edit_url(objects[sample.unit_id].source, user),
                "target_title": title(objects[sample.unit_id].target),
                "target_url": edit_url(objects[sample.unit_id].target, user),
                "preview_url": preview_url(objects[sample.unit_id].target),
                "reason": reason_label(sample.error_code),
            }
            for sample in api.canary_samples(self.run.pk, units)
        ]


class SampleFilterForm(forms.Form):
    """Target locale and type, offering only those the sample holds."""

    locale = forms.ChoiceField(label=gettext_lazy("Target locale"), required=False)
    content_type = forms.TypedChoiceField(
        label=gettext_lazy("Type"), required=False, coerce=int, empty_value=None
    )

    def __init__(self, *args: Any, units: models.QuerySet[Unit], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pairs = set(
            units.values_list("target_locale__language_code", "content_type_id")
            .distinct()
            .order_by()
        )
        locales = sorted({code for code, _ in pairs})
        types = sorted(
            (type_id, type_name(type_id)) for type_id in {type_id for _, type_id in pairs}
        )
        all_label = _("All")
        choice_field(self, "locale").choices = [("", all_label), *((c, c) for c in locales)]
        choice_field(self, "content_type").choices = [("", all_label), *types]

    def filters(self) -> dict[str, Any]:
        return {
            "locale_code": self.cleaned_data.get("locale") or "",
            "content_type_id": self.cleaned_data.get("content_type"),
        }


def type_name(content_type_id: int) -> str:
    model = ContentType.objects.get_for_id(content_type_id).model_class()
    return str(capfirst(model._meta.verbose_name)) if model else str(content_type_id)


def reason_label(error_code: str) -> str:
    return str(api.ErrorCode(error_code).label) if error_code in api.ErrorCode.values else ""


def outcome_sentences(outcome: api.CanaryOutcome) -> list[str]:
    """Why a canary of N shows this many translations: each way the sample went, counted."""
    sentences = [
        ngettext(
            "%(n)d unit sampled for a canary of %(size)d",
            "%(n)d units sampled for a canary of %(size)d",
            outcome.worked,
        )
        % {"n": outcome.worked, "size": outcome.size}
    ]
    if outcome.scope_units < outcome.size:
        sentences.append(
            ngettext(
                "the scope holds only %(n)d unit",
                "the scope holds only %(n)d units",
                outcome.scope_units,
            )
            % {"n": outcome.scope_units}
        )
    counts = [
        (
            outcome.written,
            ngettext("%(n)d translated as a draft", "%(n)d translated as drafts", outcome.written),
        ),
        (
            outcome.stored_only,
            ngettext(
                "%(n)d translated but not written (its type has no drafts; promoting writes it)",
                "%(n)d translated but not written (their type has no drafts; promoting writes "
                "them)",
                outcome.stored_only,
            ),
        ),
        (outcome.in_flight, ngettext("%(n)d still to do", "%(n)d still to do", outcome.in_flight)),
    ]
    sentences += [text % {"n": n} for n, text in counts if n]
    for code, n in outcome.skipped.items():
        sentences.append(_("%(n)d skipped: %(reason)s") % {"n": n, "reason": reason_of(code)})
    for code, n in outcome.failed.items():
        sentences.append(_("%(n)d failed: %(reason)s") % {"n": n, "reason": reason_of(code)})
    return sentences


def reason_of(code: str) -> str:
    return (reason_label(code) or code or _("no reason given")).lower()
