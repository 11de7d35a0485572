"""The caps that hold a run: ``WAGTAIL_BULK_TRANSLATE['BUDGETS']``, overridden in the admin.

Every cap configured applies: ``run`` to each run's own spending, ``daily`` and ``monthly`` to
the spending of all runs together, those under ``origins`` to the runs of one origin only
(``origins.automatic.daily`` counts what automatic sync spent today), and those under
``profiles`` to what one translator profile was sent (``profiles.gpt.monthly``). A run is held
by the tightest of them. A cap has a limit in characters, in money (``CURRENCY``), or both.

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

CapKey = tuple[str, str | None, str | None]  # period, origin, profile (None: every one)


@dataclass(frozen=True)
class Cap:
    period: str  # RUN, DAILY or MONTHLY
    origin: str | None  # counts only the runs of this origin; None: every run
    characters: int | None = None
    cost: Decimal | None = None
    set_in: str = SETTINGS  # SETTINGS or ADMIN
    profile: str | None = None  # counts only what this translator profile was sent

    @property
    def key(self) -> str:
        """Where it is configured: ``daily``, ``origins.automatic.daily``,
        ``profiles.gpt.daily``."""
        if self.profile:
            return f"profiles.{self.profile}.{self.period}"
        return f"origins.{self.origin}.{self.period}" if self.origin else self.period

    @property
    def limited(self) -> bool:
        return self.characters is not None or self.cost is not None

    def describe(self) -> str:
        """ "the daily cap on automatic runs", "the run cap"."""
        name = {RUN: "per-run", DAILY: "daily", MONTHLY: "monthly"}[self.period]
        if self.profile:
            return f"the {name} cap on the translator profile {self.profile!r}"
        if self.origin is None:
            return f"the {name} cap" + ("" if self.period == RUN else " (all runs)")
        runs = ORIGIN_NAMES.get(self.origin, f"{self.origin} runs")
        return f"the {name} cap on {runs}"


def caps_for(origin: str, profiles: list[str] | tuple[str, ...] = ()) -> list[Cap]:
    """Every cap that applies to a run of ``origin`` sending to ``profiles`` (none: the run is
    never held)."""
    return [
        cap
        for cap in configured_caps()
        if cap.origin in (None, origin) and cap.profile in (None, *profiles)
    ]


def configured_caps(with_lifted: bool = False) -> list[Cap]:
    """The caps in force, all-run caps first, each period in order. ``with_lifted`` keeps the
    admin's caps without limits (a settings cap lifted there), for the screens listing them."""
    caps = {**settings_caps(), **admin_caps()}
    kept = [cap for cap in caps.values() if with_lifted or cap.limited]
    return sorted(
        kept,
        key=lambda c: (
            c.profile is not None,
            c.origin is not None,
            c.profile or c.origin or "",
            PERIODS.index(c.period),
        ),
    )


def settings_caps() -> dict[CapKey, Cap]:
    budgets = get_settings().BUDGETS or {}
    sections: list[tuple[str | None, str | None, dict[str, Any]]] = [(None, None, budgets)]
    sections += [(o, None, caps or {}) for o, caps in (budgets.get("origins") or {}).items()]
    sections += [(None, p, caps or {}) for p, caps in (budgets.get("profiles") or {}).items()]
    return {
        (period, origin, profile): cap
        for origin, profile, section in sections
        for period in PERIODS
        if (cap := read_cap(section, period, origin, profile))
    }


def admin_caps() -> dict[CapKey, Cap]:
    return {(c.period, c.origin, None): c for c in map(cap_of, BudgetCap.objects.all())}


def cap_of(row: BudgetCap) -> Cap:
    """The cap a row of the admin's Budgets screen sets."""
    return Cap(row.period, row.origin or None, row.characters, row.cost, set_in=ADMIN)


def read_cap(
    caps: dict[str, Any], period: str, origin: str | None, profile: str | None = None
) -> Cap | None:
    limits = caps.get(period) or {}
    characters, cost = limits.get("characters"), limits.get("cost")
    if characters is None and cost is None:
        return None
    return Cap(
        period,
        origin,
        characters=None if characters is None else int(characters),
        cost=None if cost is None else Decimal(str(cost)),
        profile=profile,
    )


def any_cost_cap(caps: list[Cap]) -> bool:
    return any(cap.cost is not None for cap in caps)
