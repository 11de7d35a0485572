"""The caps that hold a run: ``WAGTAIL_BULK_TRANSLATE['BUDGETS']``, overridden in the admin.

Every cap configured applies: ``run`` to each run's own spending, ``daily`` and ``monthly`` to
the spending of all runs together, and those under ``origins`` to the runs of one origin only
(``origins.automatic.daily`` counts what automatic sync spent today). A run is held by the
tightest of them. A cap has a limit in characters, in money (``CURRENCY``), or both.

A cap set in the admin (Bulk translation → Budgets, :class:`~..models.BudgetCap`) replaces the
settings' cap of the same period and origin, so editors raise or lower a cap without a deploy;
one set there without limits lifts the settings' cap.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..conf import get_settings
from ..models import BudgetCap
from .periods import DAILY, MONTHLY, PERIODS, RUN

ORIGIN_NAMES = {"admin": "runs started in the admin", "command": "command-line runs"}
SETTINGS = "settings"
ADMIN = "admin"

CapKey = tuple[str, str | None]  # period, origin (None: every run)


@dataclass(frozen=True)
class Cap:
    period: str  # RUN, DAILY or MONTHLY
    origin: str | None  # counts only the runs of this origin; None: every run
    characters: int | None = None
    cost: Decimal | None = None
    set_in: str = SETTINGS  # SETTINGS or ADMIN

    @property
    def key(self) -> str:
        """Where it is configured: ``daily`` or ``origins.automatic.daily``."""
        return f"origins.{self.origin}.{self.period}" if self.origin else self.period

    @property
    def limited(self) -> bool:
        return self.characters is not None or self.cost is not None

    def describe(self) -> str:
        """ "the daily cap on automatic runs", "the run cap"."""
        name = {RUN: "per-run", DAILY: "daily", MONTHLY: "monthly"}[self.period]
        if self.origin is None:
            return f"the {name} cap" + ("" if self.period == RUN else " (all runs)")
        runs = ORIGIN_NAMES.get(self.origin, f"{self.origin} runs")
        return f"the {name} cap on {runs}"


def caps_for(origin: str) -> list[Cap]:
    """Every cap that applies to a run of ``origin`` (none: the run is never held)."""
    return [cap for cap in configured_caps() if cap.origin in (None, origin)]


def configured_caps(with_lifted: bool = False) -> list[Cap]:
    """The caps in force, all-run caps first, each period in order. ``with_lifted`` keeps the
    admin's caps without limits (a settings cap lifted there), for the screens listing them."""
    caps = {**settings_caps(), **admin_caps()}
    kept = [cap for cap in caps.values() if with_lifted or cap.limited]
    return sorted(
        kept, key=lambda c: (c.origin is not None, c.origin or "", PERIODS.index(c.period))
    )


def settings_caps() -> dict[CapKey, Cap]:
    budgets = get_settings().BUDGETS or {}
    sections: list[tuple[str | None, dict[str, Any]]] = [(None, budgets)]
    sections += [(origin, caps or {}) for origin, caps in (budgets.get("origins") or {}).items()]
    return {
        (period, origin): cap
        for origin, section in sections
        for period in PERIODS
        if (cap := read_cap(section, period, origin))
    }


def admin_caps() -> dict[CapKey, Cap]:
    return {(cap.period, cap.origin): cap for cap in map(cap_of, BudgetCap.objects.all())}


def cap_of(row: BudgetCap) -> Cap:
    """The cap a row of the admin's Budgets screen sets."""
    return Cap(row.period, row.origin or None, row.characters, row.cost, set_in=ADMIN)


def read_cap(caps: dict[str, Any], period: str, origin: str | None) -> Cap | None:
    limits = caps.get(period) or {}
    characters, cost = limits.get("characters"), limits.get("cost")
    if characters is None and cost is None:
        return None
    return Cap(
        period,
        origin,
        characters=None if characters is None else int(characters),
        cost=None if cost is None else Decimal(str(cost)),
    )


def any_cost_cap(caps: list[Cap]) -> bool:
    return any(cap.cost is not None for cap in caps)
