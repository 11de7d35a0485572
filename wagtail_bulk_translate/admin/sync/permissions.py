"""The sync screen needs the plugin's permission, ``manage_runs``, for every action: who may
start runs may decide which publishes start them."""

from __future__ import annotations

from ...models import SyncConfiguration
from ..glossary.permissions import GlossaryPermissionPolicy


class SyncPermissionPolicy(GlossaryPermissionPolicy):
    """Every action on a site's sync configuration needs ``manage_runs``."""


sync_permission_policy = SyncPermissionPolicy(SyncConfiguration)


def register_sync_permission_policy() -> None:
    """Register the policy where Wagtail 8 looks it up (menu items, generic views)."""
    try:
        from wagtail.permissions import register_permission_policy
    except ImportError:  # Wagtail 7.x takes it from the viewset and views only
        return
    register_permission_policy(SyncConfiguration, sync_permission_policy, exact_class=True)
