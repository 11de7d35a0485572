"""What every view of the admin shares: the permission gate."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from ..permissions import can_manage_runs


def forbidden(request: HttpRequest) -> HttpResponse:
    """A real 403 that says which permission is missing and who can grant it."""
    return TemplateResponse(request, "wagtail_bulk_translate/forbidden.html", status=403)


class ManageRunsRequiredMixin:
    """403 (not Wagtail's redirect to the dashboard) for users without ``manage_runs``, so
    scripts and the status endpoint's poller see the refusal too."""

    def dispatch(self, request, *args, **kwargs):
        if not can_manage_runs(request.user):
            return forbidden(request)
        return super().dispatch(request, *args, **kwargs)
