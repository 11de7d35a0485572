"""What the plugin's model screens (glossary, house style, automatic sync, budgets) have in
common."""

from __future__ import annotations

from django.contrib.auth.models import Permission
from django.db.models import QuerySet
from wagtail.admin.viewsets.model import ModelViewSet
from wagtail.permission_policies import ModelPermissionPolicy


class PluginModelViewSet(ModelViewSet):
    """No copy or inspect view, no reference index, and no permissions of its own: the
    plugin's one permission (``manage_runs``) and its policies decide who may use it.

    ``policy`` is the screen's permission policy."""

    copy_view_enabled = False
    inspect_view_enabled = False
    add_to_reference_index = False
    policy: ModelPermissionPolicy

    @property
    def permission_policy(self) -> ModelPermissionPolicy:
        return self.policy

    def get_permissions_to_register(self) -> QuerySet[Permission]:
        return Permission.objects.none()
