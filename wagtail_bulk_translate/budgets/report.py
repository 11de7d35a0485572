"""What is left of each budget: for the preflight (before a run of an origin starts), and for a
run's status (why it is paused and when it goes on)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone

from ..conf import get_settings
from ..errors import ErrorCode
from ..models import Run, RunStatus
from ..translators.pins import profiles_of_run
from .caps import Cap, caps_for, configured_caps
from .periods import SPENT_WHEN, period_end
from .spending import Spent, spent_against


@dataclass(frozen=True)
class BudgetLeft:
    cap: Cap
    spent: Spent
    resets_at: datetime | None  # when its period rolls over (None: a per-run cap)

    @property
    def characters_left(self) -> int | None:
        if self.cap.characters is None:
            return None
        return max(self.cap.characters - self.spent.characters, 0)

    @property
    def cost_left(self) -> Decimal | None:
        if self.cap.cost is None:
            return None
        return max(self.cap.cost - self.spent.cost, Decimal(0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "cap": self.cap.key,
            "description": self.cap.describe(),
            "characters": self.cap.characters,
            "characters_spent": self.spent.characters if self.cap.characters is not None else None,
            "characters_left": self.characters_left,
            "cost": money(self.cap.cost),
            "cost_spent": money(self.spent.cost) if self.cap.cost is not None else None,
            "cost_left": money(self.cost_left),
            "currency": get_settings().CURRENCY,
            "set_in": self.cap.set_in,
            "resets_at": self.resets_at.isoformat() if self.resets_at else None,
        }

    def text(self) -> str:
        """ "the daily cap on automatic runs: 1,200 of 100,000 characters left today"."""
        return f"{self.cap.describe()}: {self.left_text()}"

    def left_text(self) -> str:
        left = []
        if self.cap.characters is not None:
            left.append(f"{self.characters_left:,} of {self.cap.characters:,} characters")
        if self.cap.cost is not None:
            left.append(f"{self.cost_left:.2f} of {self.cap.cost:.2f} {get_settings().CURRENCY}")
        return f"{' and '.join(left)} left {SPENT_WHEN[self.cap.period]}"


def money(value: Decimal | None) -> str | None:
    return None if value is None else str(value.quantize(Decimal("0.0001")))


def budgets_left(origin: str, run: Run | None = None) -> list[BudgetLeft]:
    """Every cap a run of ``origin`` is held by, with what is left of it now."""
    return left_of(caps_for(origin), run)


def every_budget_left() -> list[BudgetLeft]:
    """Every cap in force with what is left of it now (a per-run cap: all of it, for a new run)."""
    return left_of(configured_caps(), None)


def left_of(caps: list[Cap], run: Run | None) -> list[BudgetLeft]:
    now = timezone.now()
    return [
        BudgetLeft(cap, spent_against(cap, run, now), period_end(cap.period, now)) for cap in caps
    ]


def estimate_warnings(left: list[BudgetLeft], characters: int, cost: Decimal | None) -> list[str]:
    """The preflight's warning for each budget its estimate does not fit in."""
    warnings = []
    for budget in left:
        over_characters = budget.characters_left is not None and characters > budget.characters_left
        over_cost = cost is not None and budget.cost_left is not None and cost > budget.cost_left
        if over_characters or over_cost:
            warnings.append(
                f"The estimate is more than what is left of {budget.cap.describe()} "
                f"({budget.left_text()}): the run will pause with "
                "budget_exceeded when it reaches the cap, and go on when the cap is raised or "
                "its period rolls over."
            )
    return warnings


def budget_report(run: Run) -> dict[str, Any] | None:
    """The run's budgets for its status (None: no cap holds it): what is left of each, and
    when it goes on by itself if a cap paused it."""
    left = left_of(caps_for(run.origin, profiles_of_run(run)), run)
    if not left:
        return None
    paused = run.status == RunStatus.PAUSED and run.error_code == ErrorCode.BUDGET_EXCEEDED
    resumes_at = paused_until(run, left) if paused else None
    return {
        "paused_by_budget": paused,
        "resumes_at": resumes_at.isoformat() if resumes_at else None,
        "caps": [budget.as_dict() for budget in left],
    }


def paused_until(run: Run, left: list[BudgetLeft]) -> datetime | None:
    """When the caps without room for what the run needs roll over (None: never by itself)."""
    needed = int((run.budget_needs or {}).get("characters") or 1)
    full = [
        budget
        for budget in left
        if (budget.characters_left is not None and budget.characters_left < needed)
        or budget.cost_left == 0
    ]
    ends = [budget.resets_at for budget in full]
    if not ends or None in ends:
        return None
    return max(end for end in ends if end is not None)
