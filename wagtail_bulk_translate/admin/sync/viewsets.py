"""The "Automatic sync" menu: one configuration per site, and the switches.

URL namespace ``wagtail_bulk_translate_sync``: ``index``, ``add``, ``edit``, ``delete``,
``pause_all``, ``resume_all``, ``pause_site``, ``resume_site``.
"""

from __future__ import annotations

from django.urls import URLPattern, path
from django.utils.translation import gettext_lazy as _
from wagtail.admin.panels import FieldPanel, ObjectList

from ...models import SyncConfiguration
from ..plugin_viewset import PluginModelViewSet
from . import views
from .forms import SyncConfigurationForm
from .permissions import sync_permission_policy


class SyncViewSet(PluginModelViewSet):
    model = SyncConfiguration
    name = "wagtail_bulk_translate_sync"
    url_prefix = "bulk-translate/sync"
    icon = "resubmit"
    menu_label = _("Automatic sync")
    menu_order = 252
    add_to_admin_menu = True
    index_view_class = views.SyncIndexView
    add_view_class = views.SyncCreateView
    edit_view_class = views.SyncEditView
    delete_view_class = views.SyncDeleteView
    policy = sync_permission_policy
    edit_handler = ObjectList(
        [
            FieldPanel("site"),
            FieldPanel("root_page"),
            FieldPanel("target_locales"),
            FieldPanel("snippet_models"),
            FieldPanel("enabled"),
        ],
        base_form_class=SyncConfigurationForm,
    )

    def get_urlpatterns(self) -> list[URLPattern]:
        return [
            *super().get_urlpatterns(),
            path("pause/", views.PauseView.as_view(), name="pause_all"),
            path("resume/", views.ResumeView.as_view(), name="resume_all"),
            path("<id:pk>/pause/", views.PauseView.as_view(), name="pause_site"),
            path("<id:pk>/resume/", views.ResumeView.as_view(), name="resume_site"),
        ]
