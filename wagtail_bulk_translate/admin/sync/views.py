"""The Automatic sync screen: the sites' configurations, the switches, what waits and what ran.

Switches are POST only; each goes through ``api`` and is written to the audit log there.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views import View
from wagtail.admin import messages
from wagtail.admin.ui.tables import Column, TitleColumn
from wagtail.admin.views import generic

from ... import api
from ...models import SyncConfiguration
from ..views.mixins import ManageRunsRequiredMixin
from .permissions import sync_permission_policy


def tree_title(configuration: SyncConfiguration) -> str:
    root = configuration.root_page or configuration.site.root_page
    return root.title


def locale_codes(configuration: SyncConfiguration) -> str:
    return ", ".join(sorted(loc.language_code for loc in configuration.target_locales.all()))


def state(configuration: SyncConfiguration) -> str:
    if not configuration.enabled:
        return _("Off")
    return _("Paused") if configuration.paused else _("On")


class SiteSwitchColumn(Column):
    """A POST button pausing or resuming the row's site."""

    cell_template_name = "wagtail_bulk_translate/sync/switch_cell.html"


class SyncIndexView(ManageRunsRequiredMixin, generic.IndexView):
    permission_policy = sync_permission_policy
    page_title = gettext_lazy("Automatic sync")
    add_item_label = gettext_lazy("Sync a site")
    template_name = "wagtail_bulk_translate/sync/index.html"

    @property
    def list_display(self) -> list[Column]:
        return [
            TitleColumn("site", label=gettext_lazy("Site"), get_url=self.get_edit_url),
            Column("tree", label=gettext_lazy("Page tree"), accessor=tree_title),
            Column("locales", label=gettext_lazy("Target locales"), accessor=locale_codes),
            Column(
                "snippet_models",
                label=gettext_lazy("Snippet models"),
                accessor=lambda c: ", ".join(c.snippet_models or []),
            ),
            Column("state", label=gettext_lazy("State"), accessor=state),
            SiteSwitchColumn("switch", label=gettext_lazy("Pause")),
        ]

    def get_base_queryset(self) -> Any:
        return SyncConfiguration.objects.select_related(
            "site", "root_page", "site__root_page"
        ).prefetch_related("target_locales")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["sync"] = api.sync_status()
        return context


class SyncCreateView(ManageRunsRequiredMixin, generic.CreateView):
    pass


class SyncEditView(ManageRunsRequiredMixin, generic.EditView):
    pass


class SyncDeleteView(ManageRunsRequiredMixin, generic.DeleteView):
    pass


class SwitchView(ManageRunsRequiredMixin, View):
    """Pause or resume all automatic translation (``pk`` None) or one site's."""

    http_method_names = ["post"]
    pause = True

    def post(self, request: HttpRequest, pk: int | None = None) -> HttpResponse:
        if pk is None:
            self.switch_all(request)
        else:
            self.switch_site(request, get_object_or_404(SyncConfiguration, pk=pk))
        return redirect("wagtail_bulk_translate_sync:index")

    def switch_all(self, request: HttpRequest) -> None:
        if self.pause:
            runs = api.pause_automatic_translation(request.user)
            messages.success(
                request,
                ngettext(
                    "All automatic translation is paused (%(n)d run paused). Changes are "
                    "remembered and translated on resume.",
                    "All automatic translation is paused (%(n)d runs paused). Changes are "
                    "remembered and translated on resume.",
                    runs,
                ) % {"n": runs},
            )  # fmt: skip
        else:
            runs = api.resume_automatic_translation(request.user)
            messages.success(
                request,
                ngettext(
                    "Automatic translation resumed (%(n)d run resumed); remembered changes follow.",
                    "Automatic translation resumed (%(n)d runs resumed); remembered changes "
                    "follow.",
                    runs,
                ) % {"n": runs},
            )  # fmt: skip

    def switch_site(self, request: HttpRequest, configuration: SyncConfiguration) -> None:
        api.set_site_sync_paused(configuration.pk, self.pause, request.user)
        text = (
            _("Automatic sync of %(site)s is paused.")
            if self.pause
            else _("Automatic sync of %(site)s resumed; its remembered changes follow.")
        )
        messages.success(request, text % {"site": configuration.site})


class PauseView(SwitchView):
    pause = True


class ResumeView(SwitchView):
    pause = False
