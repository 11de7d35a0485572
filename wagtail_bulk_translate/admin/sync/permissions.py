"""The sync screen needs the plugin's permission, ``manage_runs``, for every action: who may
start runs may decide which publishes start them."""

from __future__ import annotations

from ...models import SyncConfiguration
from ..glossary.permissions import GlossaryPermissionPolicy
from ..permissions import register_policy


class SyncPermissionPolicy(GlossaryPermissionPolicy):
    """Every action on a site's sync configuration needs ``manage_runs``."""


sync_permission_policy = SyncPermissionPolicy(SyncConfiguration)


def register_sync_permission_policy() -> None:
    register_policy(SyncConfiguration, sync_permission_policy)
