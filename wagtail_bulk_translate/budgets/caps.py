"""The caps that hold a run, read from ``WAGTAIL_BULK_TRANSLATE['BUDGETS']``.

Every cap configured applies: ``run`` to each run's own spending, ``daily`` and ``monthly`` to
the spending of all runs together, and those under ``origins`` to the runs of one origin only
(``origins.automatic.daily`` counts what automatic sync spent today). A run is held by the
tightest of them. A cap has a limit in characters, in money (``CURRENCY``), or both.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..conf import get_settings
from .periods import DAILY, MONTHLY, PERIODS, RUN

ORIGIN_NAMES = {"admin": "runs started in the admin", "command": "command-line runs"}


@dataclass(frozen=True)
class Cap:
    period: str  # RUN, DAILY or MONTHLY
    origin: str | None  # counts only the runs of this origin; None: every run
    characters: int | None = None
    cost: Decimal | None = None

    @property
    def key(self) -> str:
        """Where it is configured: ``daily`` or ``origins.automatic.daily``."""
        return f"origins.{self.origin}.{self.period}" if self.origin else self.period

    def describe(self) -> str:
        """ "the daily cap on automatic runs", "the run cap"."""
        name = {RUN: "per-run", DAILY: "daily", MONTHLY: "monthly"}[self.period]
        if self.origin is None:
            return f"the {name} cap" + ("" if self.period == RUN else " (all runs)")
        runs = ORIGIN_NAMES.get(self.origin, f"{self.origin} runs")
        return f"the {name} cap on {runs}"


def caps_for(origin: str) -> list[Cap]:
    """Every cap that applies to a run of ``origin`` (none: the run is never held)."""
    budgets = get_settings().BUDGETS or {}
    found = [cap for period in PERIODS if (cap := read_cap(budgets, period, None))]
    origin_caps = (budgets.get("origins") or {}).get(origin) or {}
    found += [cap for period in PERIODS if (cap := read_cap(origin_caps, period, origin))]
    return found


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
