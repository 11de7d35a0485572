"""Canary review: every sampled unit, its source and its translated draft side by side."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.generic import TemplateView
from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin
from wagtail.models import Page

from ... import api
from ...models import Run, Unit
from ..actions import can_promote
from ..objects import edit_url, objects_of_units, title
from .mixins import ManageRunsRequiredMixin
from .run_page import load_run, run_title


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


class CanaryReviewView(ManageRunsRequiredMixin, WagtailAdminTemplateMixin, TemplateView):
    template_name = "wagtail_bulk_translate/runs/canary_review.html"
    page_title = gettext_lazy("Canary review")
    header_icon = "view"
    run: Run

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        self.run = load_run(pk)
        return super().get(request, pk=pk)

    def get_breadcrumbs_items(self) -> list[dict[str, Any]]:
        return [
            *self.breadcrumbs_items,
            {"url": reverse("wagtail_bulk_translate:index"), "label": _("Bulk translation")},
            {
                "url": reverse("wagtail_bulk_translate:inspect", args=[self.run.pk]),
                "label": run_title(self.run),
            },
            {"url": "", "label": self.get_page_title()},
        ]

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        samples = api.canary_samples(self.run.pk) if self.run.is_canary else []
        units = Unit.objects.in_bulk([sample.unit_id for sample in samples])
        objects = objects_of_units(units.values())
        user = self.request.user
        context.update(
            run=self.run,
            run_title=run_title(self.run),
            can_promote=can_promote(self.run),
            samples=[
                {
                    "sample": sample,
                    "source_title": title(objects[sample.unit_id].source),
                    "source_url": edit_url(objects[sample.unit_id].source, user),
                    "target_title": title(objects[sample.unit_id].target),
                    "target_url": edit_url(objects[sample.unit_id].target, user),
                    "preview_url": preview_url(objects[sample.unit_id].target),
                }
                for sample in samples
            ],
        )
        return context
