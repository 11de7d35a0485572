"""The Budgets screen: every cap in force with what is left of it, then the admin's own caps.

Saving or deleting a cap goes through Wagtail's generic views (audit-logged as ``wagtail.create``
/ ``wagtail.edit`` / ``wagtail.delete``); once it commits, the runs a cap paused that have room
now go on.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from wagtail.admin import messages
from wagtail.admin.ui.tables import Column, TitleColumn, UserColumn
from wagtail.admin.views import generic

from ...budgets.caps import ADMIN, cap_of
from ...budgets.editing import caps_changed, cost_cap_warning
from ...budgets.periods import RUN
from ...budgets.report import every_budget_left
from ...conf import get_settings
from ...models import BudgetCap, CapPeriod, RunOrigin
from ...users import signed_in_user
from ..views.mixins import ManageRunsRequiredMixin
from .permissions import budget_permission_policy


def limits(row: BudgetCap) -> str:
    figures = []
    if row.characters is not None:
        figures.append(f"{row.characters:,} characters")
    if row.cost is not None:
        figures.append(f"{row.cost:.2f} {get_settings().CURRENCY}")
    return " and ".join(figures) or _("No cap")


class BudgetIndexView(ManageRunsRequiredMixin, generic.IndexView):
    permission_policy = budget_permission_policy
    page_title = gettext_lazy("Budgets")
    add_item_label = gettext_lazy("Set a cap")
    template_name = "wagtail_bulk_translate/budgets/index.html"

    @property
    def list_display(self) -> list[Column]:
        return [
            TitleColumn(
                "cap",
                label=gettext_lazy("Cap set here"),
                accessor=lambda row: cap_of(row).describe().capitalize(),
                get_url=self.get_edit_url,
            ),
            Column("limits", label=gettext_lazy("Limits"), accessor=limits),
            Column("updated_at", label=gettext_lazy("Updated")),
            UserColumn("updated_by", label=gettext_lazy("By")),
        ]

    def get_base_queryset(self) -> Any:
        return BudgetCap.objects.select_related("updated_by")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["caps_in_force"] = self.caps_in_force()
        return context

    def settings_only_row(self, budget: Any) -> dict[str, Any]:
        cap = budget.cap
        return {
            "cap": cap.describe().capitalize(),
            "left": _("per run, on its own spending") if cap.period == RUN else budget.left_text(),
            "resets_at": budget.resets_at,
            "set_in": _("Settings"),
            "change_url": "",
        }

    def caps_in_force(self) -> list[dict[str, Any]]:
        """Each cap in force, what is left of it, where it is set and where to change it."""
        set_here = {(row.period, row.origin or None): row.pk for row in BudgetCap.objects.all()}
        rows = []
        for budget in every_budget_left():
            cap = budget.cap
            if cap.profile:  # set in the settings only (BUDGETS["profiles"])
                rows.append(self.settings_only_row(budget))
                continue
            pk = set_here.get((cap.period, cap.origin))
            rows.append(
                {
                    "cap": cap.describe().capitalize(),
                    "left": _("per run, on its own spending")
                    if cap.period == RUN
                    else budget.left_text(),
                    "resets_at": budget.resets_at,
                    "set_in": _("Here") if cap.set_in == ADMIN else _("Settings"),
                    "change_url": self.get_edit_url(BudgetCap(pk=pk))
                    if pk
                    else f"{self.get_add_url()}?period={cap.period}&origin={cap.origin or ''}",
                }
            )
        return rows


class CapSavedMixin:
    """Who changed the cap, and the runs it paused go on once it is saved."""

    def save_instance(self) -> BudgetCap:
        request = self.request  # type: ignore[attr-defined]
        self.form.instance.updated_by = signed_in_user(request.user)  # type: ignore[attr-defined]
        instance = super().save_instance()  # type: ignore[misc]
        caps_changed()
        if warning := cost_cap_warning(instance.cost):
            messages.warning(request, warning)
        return instance


class BudgetCreateView(ManageRunsRequiredMixin, CapSavedMixin, generic.CreateView):
    def get_initial(self) -> dict[str, Any]:
        """``?period=daily&origin=automatic``: the Budgets screen's "Change" of a settings cap."""
        initial = super().get_initial()
        period, origin = self.request.GET.get("period"), self.request.GET.get("origin", "")
        if period in CapPeriod.values and origin in ["", *RunOrigin.values]:
            initial.update(period=period, origin=origin)
        return initial


class BudgetEditView(ManageRunsRequiredMixin, CapSavedMixin, generic.EditView):
    pass


class BudgetDeleteView(ManageRunsRequiredMixin, generic.DeleteView):
    def delete_action(self) -> None:
        super().delete_action()
        caps_changed()
