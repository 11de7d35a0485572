"""The glossary screens need the plugin's permission, ``manage_runs``, for every action.

Editors who may start runs decide what runs say, so the same permission guards both; a separate
one would leave run managers unable to fix a term they see mistranslated.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import Permission
from wagtail.permission_policies import ModelPermissionPolicy

from ...models import DeepLGlossary, GlossaryTerm, HouseStyle
from ..permissions import MANAGE_RUNS, MANAGE_RUNS_PERMISSION, register_policy


class GlossaryPermissionPolicy(ModelPermissionPolicy):
    """Every action (list, add, change, delete) on a glossary model needs ``manage_runs``."""

    def _get_permission_codename(self, action: str) -> str:
        return MANAGE_RUNS

    def _get_permission_objects_for_actions(self, actions: Iterable[str]) -> Any:
        # The permission belongs to the Run model, not to the glossary's models.
        return Permission.objects.filter(
            content_type__app_label="wagtail_bulk_translate", codename=MANAGE_RUNS
        )

    def user_has_permission(self, user: Any, action: str) -> bool:
        return bool(user and user.is_active and user.has_perm(MANAGE_RUNS_PERMISSION))

    def user_has_any_permission(self, user: Any, actions: Iterable[str]) -> bool:
        return self.user_has_permission(user, "change")


class ReadOnlyGlossaryPermissionPolicy(GlossaryPermissionPolicy):
    """Listing only: the DeepL glossaries are written by the sync, never by a form."""

    def user_has_permission(self, user: Any, action: str) -> bool:
        return action == "view" and super().user_has_permission(user, action)

    def user_has_any_permission(self, user: Any, actions: Iterable[str]) -> bool:
        return "view" in actions and super().user_has_permission(user, "view")


term_permission_policy = GlossaryPermissionPolicy(GlossaryTerm)
house_style_permission_policy = GlossaryPermissionPolicy(HouseStyle)
deepl_glossary_permission_policy = ReadOnlyGlossaryPermissionPolicy(DeepLGlossary)
POLICIES = (term_permission_policy, house_style_permission_policy, deepl_glossary_permission_policy)


def register_glossary_permission_policies() -> None:
    for policy in POLICIES:
        register_policy(policy.model, policy)
