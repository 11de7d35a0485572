"""The Budgets screen needs the plugin's permission, ``manage_runs``: who may start runs may
decide how much they spend."""

from __future__ import annotations

from ...models import BudgetCap
from ..glossary.permissions import GlossaryPermissionPolicy
from ..permissions import register_policy


class BudgetPermissionPolicy(GlossaryPermissionPolicy):
    """Every action on a cap needs ``manage_runs``."""


budget_permission_policy = BudgetPermissionPolicy(BudgetCap)


def register_budget_permission_policy() -> None:
    register_policy(BudgetCap, budget_permission_policy)
