"""The "Budgets" menu: the caps in force and the admin's own caps.

URL namespace ``wagtail_bulk_translate_budgets``: ``index``, ``add`` (``?period=&origin=``
pre-fill it), ``edit``, ``delete``.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from wagtail.admin.panels import FieldPanel, ObjectList

from ...models import BudgetCap
from ..plugin_viewset import PluginModelViewSet
from . import views
from .forms import BudgetCapForm
from .permissions import budget_permission_policy


class BudgetViewSet(PluginModelViewSet):
    model = BudgetCap
    name = "wagtail_bulk_translate_budgets"
    url_prefix = "bulk-translate/budgets"
    icon = "calendar-alt"
    menu_label = _("Budgets")
    menu_order = 253
    add_to_admin_menu = True
    index_view_class = views.BudgetIndexView
    add_view_class = views.BudgetCreateView
    edit_view_class = views.BudgetEditView
    delete_view_class = views.BudgetDeleteView
    policy = budget_permission_policy
    edit_handler = ObjectList(
        [
            FieldPanel("period"),
            FieldPanel("origin"),
            FieldPanel("characters"),
            FieldPanel("cost"),
        ],
        base_form_class=BudgetCapForm,
    )
