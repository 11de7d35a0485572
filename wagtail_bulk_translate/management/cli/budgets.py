"""``budgets list|set|remove``: the spending caps from the command line.

``list`` shows every cap in force, what is left of it and where it is set (the admin's
Budgets screen or the settings); ``set`` creates or replaces the admin's cap of a period and
origin (``--no-cap`` lifts the settings' one); ``remove`` deletes the admin's cap, so the
settings' cap applies again. A raised cap resumes the runs it paused at once. With ``--json``
stdout is one JSON document (the caps after the action) and the sentence saying what was done
goes to stderr. Changes are audit-logged without a user (the command line has none).
"""

from __future__ import annotations

import argparse
import json
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import CommandParser

from ...budgets.caps import Cap
from ...budgets.editing import cost_cap_warning, remove_cap, set_cap
from ...budgets.report import BudgetLeft, every_budget_left
from ...models import CapPeriod, RunOrigin
from .controls import refuse

BUDGET_ACTIONS = ("list", "set", "remove")
# The largest caps the columns hold (a 64-bit integer; 14 digits with 2 decimals).
MAX_CHARACTERS = 9_223_372_036_854_775_807
MAX_COST = Decimal("999999999999.99")


def add_budget_arguments(budgets: CommandParser) -> None:
    budgets.add_argument("budget_action", choices=BUDGET_ACTIONS, help="What to do.")
    budgets.add_argument(
        "period", nargs="?", choices=CapPeriod.values, help="set/remove: the cap's period."
    )
    budgets.add_argument(
        "--origin",
        choices=RunOrigin.values,
        help="set/remove: count only the runs started this way (default: all runs).",
    )
    budgets.add_argument(
        "--characters", type=characters, help="set: the most characters sent in the period."
    )
    budgets.add_argument("--cost", type=cost, help="set: the most money spent (in CURRENCY).")
    budgets.add_argument(
        "--no-cap", action="store_true", help="set: no cap (lifts the settings' cap)."
    )
    budgets.add_argument("--json", action="store_true", help="Print one JSON document.")


def characters(value: str) -> int:
    if not (value.isascii() and value.isdigit()) or int(value) > MAX_CHARACTERS:
        raise argparse.ArgumentTypeError(
            f"--characters is a whole number from 0 to {MAX_CHARACTERS}, got {value!r}"
        )
    return int(value)


def cost(value: str) -> Decimal:
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(
            f"--cost is an amount such as 12.50, got {value!r}"
        ) from None
    if not amount.is_finite() or not 0 <= amount <= MAX_COST:
        raise argparse.ArgumentTypeError(f"--cost must be between 0 and {MAX_COST}, got {value!r}")
    cents = amount.quantize(Decimal("0.01"))
    if cents != amount:
        # Stored in cents: rounding 0.001 to a zero cap without a word held every priced run.
        raise argparse.ArgumentTypeError(
            f"--cost is stored in cents: {value!r} would be rounded to {cents}; give at most "
            "2 decimals"
        )
    return cents


def handle_budgets(command: Any, options: dict[str, Any]) -> None:
    action = options["budget_action"]
    human = command.stderr if options["json"] else command.stdout
    if action == "set":
        human.write(set_from_options(options))
    elif action == "remove":
        human.write(remove_from_options(options))
    left = every_budget_left()
    if options["json"]:
        command.stdout.write(json.dumps([budget.as_dict() for budget in left], indent=2))
    elif action == "list":
        command.stdout.write("\n".join(budget_lines(left)))


def set_from_options(options: dict[str, Any]) -> str:
    period = required_period(options)
    limits = options["characters"], options["cost"]
    if options["no_cap"] and limits != (None, None):
        raise refuse("--no-cap lifts the cap: give it without --characters or --cost.")
    if not options["no_cap"] and limits == (None, None):
        raise refuse("Give --characters, --cost (or both), or --no-cap to lift the cap.")
    set_cap(period, options["origin"], *limits)
    cap = Cap(period, options["origin"])
    if options["no_cap"]:
        return f"Lifted {cap.describe()}."
    warning = cost_cap_warning(options["cost"])
    return f"Set {cap.describe()}; runs it paused go on if they fit now." + (
        f"\nWarning: {warning}" if warning else ""
    )


def remove_from_options(options: dict[str, Any]) -> str:
    period = required_period(options)
    cap = Cap(period, options["origin"])
    if not remove_cap(period, options["origin"]):
        return f"No admin cap to remove: {cap.describe()} is not set in the admin."
    return f"Removed {cap.describe()} set in the admin; the settings' cap applies, if any."


def required_period(options: dict[str, Any]) -> str:
    if options["period"] is None:
        raise refuse(
            f"{options['budget_action']}: name the period ({', '.join(CapPeriod.values)})."
        )
    return options["period"]


def budget_lines(left: list[BudgetLeft]) -> list[str]:
    if not left:
        return ["No cap: runs spend what their scope needs."]
    lines = []
    for budget in left:
        resets = f", rolls over {budget.resets_at:%Y-%m-%d %H:%M %Z}" if budget.resets_at else ""
        lines.append(f"{budget.text()} (set in the {budget.cap.set_in}{resets})")
    return lines
