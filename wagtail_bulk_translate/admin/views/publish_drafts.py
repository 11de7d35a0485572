"""The coverage report's "Publish drafts": confirm, then publish one row's translated drafts
(see :mod:`wagtail_bulk_translate.runs.publish_drafts`)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views import View
from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin
from wagtail.models import Locale

from ...errors import ScopeError
from ...runs.publish_drafts import publish_drafts, translated_drafts
from .mixins import ManageRunsRequiredMixin


class PublishDraftsView(ManageRunsRequiredMixin, WagtailAdminTemplateMixin, View):
    page_title = gettext_lazy("Publish translated drafts")
    header_icon = "globe"
    template_name = "wagtail_bulk_translate/reports/publish_drafts.html"

    def get_breadcrumbs_items(self) -> list[dict[str, Any]]:
        report = {"url": self.report_url(), "label": _("Translation coverage")}
        return [*super().get_breadcrumbs_items(), report, {"url": "", "label": self.page_title}]

    def report_url(self) -> str:
        return reverse("wagtail_bulk_translate_coverage")

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        try:
            return super().dispatch(request, *args, **kwargs)
        except ScopeError as err:  # a bad row: said on the report, nothing published
            messages.error(request, str(err))
            return redirect(self.report_url())

    def row(self, request: HttpRequest) -> tuple[str, Locale, Locale]:
        params = request.GET if request.method == "GET" else request.POST
        label = params.get("model", "")
        source = Locale.objects.filter(language_code=params.get("source", "")).first()
        target = Locale.objects.filter(language_code=params.get("target", "")).first()
        if source is None or target is None or source == target:
            raise ScopeError(_("Unknown source or target locale."))
        return label, source, target

    def get(self, request: HttpRequest) -> HttpResponse:
        label, source, target = self.row(request)
        count = translated_drafts(label, source, target).count()
        context = self.get_context_data(
            label=label, source=source, target=target, count=count, report_url=self.report_url()
        )
        return self.render_to_response(context)

    def post(self, request: HttpRequest) -> HttpResponse:
        label, source, target = self.row(request)
        done = publish_drafts(label, source, target, request.user)
        messages.success(
            request,
            ngettext(
                "Published %(n)d translated draft of %(model)s in %(locale)s.",
                "Published %(n)d translated drafts of %(model)s in %(locale)s.",
                done.published,
            )
            % {"n": done.published, "model": label, "locale": target.get_display_name()},
        )
        if done.not_allowed:
            messages.warning(
                request,
                ngettext(
                    "%(n)d draft was left unpublished: you may not publish it.",
                    "%(n)d drafts were left unpublished: you may not publish them.",
                    done.not_allowed,
                )
                % {"n": done.not_allowed},
            )
        if done.left:
            messages.info(
                request,
                ngettext(
                    "%(n)d more draft is waiting: publish again.",
                    "%(n)d more drafts are waiting: publish again.",
                    done.left,
                )
                % {"n": done.left},
            )
        return redirect(self.report_url())
