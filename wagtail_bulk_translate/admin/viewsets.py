"""The "Bulk translation" menu: a ModelViewSet of runs without generic edit, copy or delete.

URL names (namespace ``wagtail_bulk_translate``): ``index``, ``index_results``, ``add`` (the
new-run wizard, which accepts pre-filling GET parameters), ``inspect`` (the run page),
``status`` (its JSON), ``canary_review``, and one per action: ``cancel``, ``pause``,
``resume``, ``retry``, ``revert``, ``promote``.
"""

from __future__ import annotations

from django.contrib.auth.models import Permission
from django.db.models import QuerySet
from django.urls import URLPattern, path
from django.utils.translation import gettext_lazy as _
from wagtail.admin.viewsets.model import ModelViewSet

from ..models import Run
from .permissions import RunPermissionPolicy, run_permission_policy
from .views import actions
from .views.canary_review import CanaryReviewView
from .views.index import RunIndexView
from .views.new_run import NewRunView
from .views.run_page import RunPageView, RunStatusView


class RunViewSet(ModelViewSet):
    model = Run
    name = "wagtail_bulk_translate"
    url_prefix = "bulk-translate"
    icon = "globe"
    menu_label = _("Bulk translation")
    menu_order = 250
    add_to_admin_menu = True
    index_view_class = RunIndexView
    inspect_view_class = RunPageView
    inspect_view_enabled = True
    copy_view_enabled = False
    list_per_page = 20
    # Runs refer to nothing an editor would look up "usage" of; indexing them would only add
    # a reference-index task to every run start.
    add_to_reference_index = False
    # Runs are never edited through a model form; the wizard builds them through the API.
    form_fields: list[str] = []

    @property
    def permission_policy(self) -> RunPermissionPolicy:
        return run_permission_policy

    def get_permissions_to_register(self) -> QuerySet[Permission]:
        return super().get_permissions_to_register().filter(codename="manage_runs")

    def get_urlpatterns(self) -> list[URLPattern]:
        return [
            path("", self.index_view, name="index"),
            path("results/", self.index_results_view, name="index_results"),
            path("new/", NewRunView.as_view(), name="add"),
            path("<id:pk>/", self.inspect_view, name="inspect"),
            path("<id:pk>/status/", RunStatusView.as_view(), name="status"),
            path("<id:pk>/canary/", CanaryReviewView.as_view(), name="canary_review"),
            path("<id:pk>/cancel/", actions.CancelView.as_view(), name="cancel"),
            path("<id:pk>/pause/", actions.PauseView.as_view(), name="pause"),
            path("<id:pk>/resume/", actions.ResumeView.as_view(), name="resume"),
            path("<id:pk>/retry/", actions.RetryView.as_view(), name="retry"),
            path("<id:pk>/revert/", actions.RevertView.as_view(), name="revert"),
            path("<id:pk>/promote/", actions.PromoteView.as_view(), name="promote"),
        ]
