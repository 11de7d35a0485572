"""Setting and removing the admin's caps (the Budgets screen and ``bulk_translate budgets``).

A cap changed takes effect at the next provider request of every run. Raising or lifting one
resumes the runs it had paused at once (after the change commits), instead of at the janitor's
next sweep: an editor who raised the daily cap sees the waiting run go on.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction
from wagtail.log_actions import log

from ..engine.janitor import resume_budget_paused_runs
from ..models import BudgetCap
from ..translators.loading import configured_translator_class, reports_money
from ..users import signed_in_user


def set_cap(
    period: str,
    origin: str | None,
    characters: int | None,
    cost: Decimal | None,
    user: Any = None,
) -> BudgetCap:
    """Create or replace the admin's cap of ``period`` and ``origin`` (neither limit: no cap)."""
    with transaction.atomic():
        cap, created = BudgetCap.objects.update_or_create(
            period=period,
            origin=origin or "",
            defaults={"characters": characters, "cost": cost, "updated_by": signed_in_user(user)},
        )
        log(
            instance=cap,
            action="wagtail.create" if created else "wagtail.edit",
            user=signed_in_user(user),
        )
        caps_changed()
    return cap


def remove_cap(period: str, origin: str | None, user: Any = None) -> bool:
    """Remove the admin's cap (the settings' cap of that period and origin applies again)."""
    with transaction.atomic():
        cap = BudgetCap.objects.filter(period=period, origin=origin or "").first()
        if cap is None:
            return False
        log(instance=cap, action="wagtail.delete", user=signed_in_user(user))
        cap.delete()
        caps_changed()
    return True


def cost_cap_warning(cost: Decimal | None) -> str | None:
    """What to tell an editor setting a cost cap that can never hold a run (W009's words)."""
    translator_class = configured_translator_class()
    if cost is None or translator_class is None or reports_money(translator_class):
        return None
    return (
        f"{translator_class.__name__} bills characters and reports no money: a cost cap never "
        "holds its runs. Cap characters too."
    )


def caps_changed() -> None:
    """Resume the runs a cap paused that have room now, once the change is committed."""
    transaction.on_commit(resume_budget_paused_runs)
