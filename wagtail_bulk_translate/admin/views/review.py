"""The review queue: translations a check flagged, site-wide or of one run.

Each flagged unit shows its flagged texts, source beside translation, with the reason (the term,
the ratio); actions: accept (publishes when the run would have), edit in the translation editor
(a link to the target's edit view, which wagtail-localize turns into its editor), re-translate
(a one-unit run; or first add a glossary term, in one flow: ``review_term.py``) and dismiss;
accept also in bulk. POST actions go through ``api``, which logs them; every one needs
``manage_runs`` and the right to edit (or, to accept a publishing review, publish) the target
by hand.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import URLResolver, include, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from django.views.generic import TemplateView
from wagtail.admin import messages
from wagtail.admin.menu import MenuItem
from wagtail.admin.ui.tables import Column
from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin

from ... import api
from ...models import Run
from ..ids import id_or_404
from ..objects import edit_url, objects_of_units, title
from ..permissions import can_edit_object, can_manage_runs
from .mixins import ManageRunsRequiredMixin, forbidden
from .review_term import ReviewTermView, queue_url

QUEUE_SIZE = 200
ACTIONS = ("accept", "dismiss", "retranslate")


class ReviewQueueView(ManageRunsRequiredMixin, WagtailAdminTemplateMixin, TemplateView):
    template_name = "wagtail_bulk_translate/review/queue.html"
    page_title = gettext_lazy("Translations to review")
    header_icon = "warning"

    def get_breadcrumbs_items(self) -> list[dict[str, Any]]:
        # Wagtail's header shows the last breadcrumb: without this one it read "Home".
        return [*self.breadcrumbs_items, {"url": "", "label": self.page_title}]

    def run_id(self) -> int | None:
        value = self.request.GET.get("run", "")
        return id_or_404(value) if value else None

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        run_id = self.run_id()
        queue = api.review_queue(run_id)
        reviews = list(queue[:QUEUE_SIZE])
        objects = objects_of_units(review.unit for review in reviews)
        user = self.request.user
        rows = []
        for review in reviews:
            found = objects[review.unit_id]
            rows.append(
                {
                    "review": review,
                    "source_title": title(found.source),
                    "target_title": title(found.target),
                    "edit_url": edit_url(found.target, user),
                    "allowed": can_edit_object(user, found.target, publish=review.would_publish),
                }
            )
        context.update(
            rows=rows,
            total=queue.count(),
            run=Run.objects.filter(pk=run_id).first() if run_id else None,
            queue_url=queue_url(run_id),
        )
        return context


class ReviewActionView(ManageRunsRequiredMixin, View):
    """POST ``action`` on one unit, or ``accept`` on the ``unit`` ids checked (bulk)."""

    http_method_names = ["post"]

    def post(self, request: HttpRequest, action: str) -> HttpResponse:
        unit_ids = [id_or_404(pk) for pk in request.POST.getlist("unit")]
        if action not in ACTIONS or not unit_ids or (action != "accept" and len(unit_ids) > 1):
            messages.error(request, _("Choose one translation to review (or several to accept)."))
            return redirect(self.back())
        try:
            reviews = [api.review_of(pk) for pk in unit_ids]
        except api.BulkTranslateError as err:
            messages.error(request, str(err))
            return redirect(self.back())
        if not all(self.allowed(review, action) for review in reviews):
            return forbidden(request)
        for review in reviews:
            try:
                self.perform(action, review.unit_id)
            except api.BulkTranslateError as err:
                messages.error(request, str(err))
        return redirect(self.back())

    def allowed(self, review: Any, action: str) -> bool:
        target = api.target_of(review)
        return can_edit_object(self.request.user, target, publish=action == "accept")

    def perform(self, action: str, unit_id: int) -> None:
        user = self.request.user
        if action == "accept":
            _review, published = api.accept_review(unit_id, user)
            text = _("Accepted and published.") if published else _("Accepted.")
        elif action == "dismiss":
            api.dismiss_review(unit_id, user)
            text = _("Dismissed: the translation is left as it is.")
        else:
            run = api.retranslate_review(unit_id, user)
            text = _("Translating it again in run #%(run)d.") % {"run": run.pk}
        messages.success(
            self.request, _("Unit #%(unit)d: %(text)s") % {"unit": unit_id, "text": text}
        )

    def back(self) -> str:
        url = self.request.POST.get("next", "")
        if url and url_has_allowed_host_and_scheme(url, {self.request.get_host()}):
            return url
        return queue_url()


def review_urls() -> list[URLResolver]:
    views = [
        path("", ReviewQueueView.as_view(), name="index"),
        path("<id:unit_id>/term/", ReviewTermView.as_view(), name="add_term"),
        path("<str:action>/", ReviewActionView.as_view(), name="action"),
    ]
    urls = include((views, "wagtail_bulk_translate_review"))
    return [path("bulk-translate/review/", urls)]


class ReviewCountColumn(Column):
    """The runs listing's "To review" cell: a link to the run's queue (needs
    ``api.annotate_review_counts`` on the listing's queryset)."""

    cell_template_name = "wagtail_bulk_translate/review/count_cell.html"

    def __init__(self) -> None:
        super().__init__("n_to_review", label=gettext_lazy("To review"))

    def get_cell_context_data(self, instance: Any, parent_context: Any) -> dict[str, Any]:
        context = super().get_cell_context_data(instance, parent_context)
        context.update(review_count=context["value"], review_url=queue_url(instance.pk))
        return context


def review_count_context(run_id: int | None = None) -> dict[str, Any]:
    """What ``review/count_link.html`` shows: pending reviews, of a run or site-wide."""
    return {"review_count": api.pending_review_count(run_id), "review_url": queue_url(run_id)}


class ReviewMenuItem(MenuItem):
    def is_shown(self, request: HttpRequest) -> bool:
        return can_manage_runs(request.user)


def review_menu_item() -> ReviewMenuItem:
    return ReviewMenuItem(
        _("Translation review"),
        reverse("wagtail_bulk_translate_review:index"),
        icon_name="warning",
        order=905,
    )


def register_review_log_actions(actions: Any) -> None:
    """Part of the ``register_log_actions`` hook: accept, dismiss, re-translate."""
    for action, (label, message) in api.REVIEW_ACTIONS.items():
        actions.register_action(action, label, message)
