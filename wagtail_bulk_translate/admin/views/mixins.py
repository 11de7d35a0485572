"""What every view of the admin shares: the permission gate, and the breadcrumbs of a run's
sub-pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from ...models import Run
from ..columns import run_title
from ..permissions import can_manage_runs

if TYPE_CHECKING:
    # The mixin always goes before a Django view class: type-check it as one.
    from django.views import View

    _ViewBase = View
else:
    _ViewBase = object


def forbidden(request: HttpRequest) -> HttpResponse:
    """A real 403 that says which permission is missing and who can grant it."""
    return TemplateResponse(request, "wagtail_bulk_translate/forbidden.html", status=403)


class ManageRunsRequiredMixin(_ViewBase):
    """403 (not Wagtail's redirect to the dashboard) for users without ``manage_runs``, so
    scripts and the status endpoint's poller see the refusal too."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not can_manage_runs(request.user):
            return forbidden(request)
        return super().dispatch(request, *args, **kwargs)


class RunSubpageMixin(_ViewBase):
    """Breadcrumbs "Bulk translation > Run #4 > <this page>" for a Wagtail admin template view
    about ``self.run`` (the slim header bar every Wagtail admin page has)."""

    run: Run
    # Provided by Wagtail's WagtailAdminTemplateMixin, which follows this mixin.
    breadcrumbs_items: list[dict[str, Any]]
    get_page_title: Callable[[], str]

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
