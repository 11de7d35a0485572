"""What every view of the admin shares: the permission gate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template.response import TemplateResponse

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
