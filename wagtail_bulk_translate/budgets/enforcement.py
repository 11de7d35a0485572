"""Before each translator request: reserve what it will spend, or refuse it.

The check and the reservation are one transaction, serialized across workers (a PostgreSQL
advisory lock; on SQLite the reservation's insert takes the database's write lock first), so two
workers cannot both spend the last of a cap. The reservation counts until the request is written
to the ledger (:func:`release`, in the same transaction) or its worker died (it expires with the
unit lease). A request that does not fit is cut to the texts that do; one whose first text does
not fit is refused with :class:`~wagtail_bulk_translate.errors.BudgetExceededError`, and the run
pauses (:mod:`wagtail_bulk_translate.engine.pauses`). Characters are known before the request,
so a character cap is never passed; money is the translator's estimate until it answers, so a
cost cap is passed by at most that estimate's error on one request per worker.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ..conf import get_settings
from ..errors import BudgetExceededError
from ..models import BudgetReservation, Run
from ..translators.pins import profiles_of_run
from .caps import Cap, any_cost_cap, caps_for
from .periods import SPENT_WHEN, period_end
from .spending import Spent, spent_against

# Any fixed number: the advisory lock all budget checks of the database take.
ADVISORY_LOCK_KEY = 0x77627462  # "wbtb"


def reserve(
    run: Run,
    token: str,
    sizes: list[int],
    estimate_cost: Callable[[], Decimal | None],
    profile: str = "",
) -> int:
    """Reserve the spend of a request of texts of ``sizes`` characters; returns how many of its
    first texts fit every cap (all of them when no cap applies). ``estimate_cost`` is asked only
    when a cost cap applies. Raises BudgetExceededError when not even the first one fits."""
    caps = caps_for(run.origin, [profile] if profile else [])
    if not caps or not sizes:
        return len(sizes)
    cost = (estimate_cost() or Decimal(0)) if any_cost_cap(caps) else Decimal(0)
    now = timezone.now()
    with transaction.atomic():
        serialize_budget_checks()
        own = BudgetReservation.objects.create(
            token=uuid.UUID(token),
            run=run,
            profile=profile,
            characters=sum(sizes),
            cost=cost,
            expires_at=now + timedelta(seconds=get_settings().LEASE_SECONDS),
        )
        # Spent by others: this request's own reservation (already counted) aside.
        mine = Spent(sum(sizes), cost)
        fits = {
            cap: fitting_texts(cap, spent_against(cap, run, now) - mine, sizes, cost)
            for cap in caps
        }
        allowed = min(fits.values())
        if not allowed:
            own.delete()
            limiting = [cap for cap, n in fits.items() if n == 0]
            raise refusal(run, limiting, needs(sizes, cost), now)
        if allowed < len(sizes):
            own.characters, own.cost = sum(sizes[:allowed]), share(cost, sizes, allowed)
            own.save(update_fields=["characters", "cost"])
    return allowed


def release(token: str) -> None:
    """The request is in the ledger (or never went out): its reservation stops counting."""
    BudgetReservation.objects.filter(token=uuid.UUID(token)).delete()


def serialize_budget_checks() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ADVISORY_LOCK_KEY])


def fitting_texts(cap: Cap, spent: Spent, sizes: list[int], cost: Decimal) -> int:
    """How many of the first texts fit what is left of ``cap``."""
    n = len(sizes)
    if cap.characters is not None:
        n = min(n, prefix_within(sizes, cap.characters - spent.characters))
    if cap.cost is not None:
        room = cap.cost - spent.cost
        costs = [share(cost, sizes, i + 1) - share(cost, sizes, i) for i in range(len(sizes))]
        n = min(n, prefix_within(costs, room) if room > 0 else 0)
    return n


def prefix_within(amounts: list[Any], room: Any) -> int:
    used, count = 0, 0
    for amount in amounts:
        used += amount
        if used > room:
            break
        count += 1
    return count


def share(cost: Decimal, sizes: list[int], count: int) -> Decimal:
    """The estimated cost of the first ``count`` texts: the request's, pro rata characters."""
    total = sum(sizes)
    if not total:
        return cost * count / len(sizes)
    return cost * sum(sizes[:count]) / total


def needs(sizes: list[int], cost: Decimal) -> dict[str, Any]:
    """What the refused request's first text needs: the run goes on once every cap has it."""
    return {"characters": sizes[0], "cost": str(share(cost, sizes, 1))}


def refusal(run: Run, caps: list[Cap], needed: dict[str, Any], now: datetime) -> Exception:
    ends = [period_end(cap.period, now) for cap in caps]
    resumes_at = None if None in ends else max(e for e in ends if e is not None)
    reached = "; ".join(cap_reached(cap, spent_against(cap, run, now)) for cap in caps)
    too_small = [
        cap for cap in caps if cap.characters is not None and cap.characters < needed["characters"]
    ]
    if too_small:
        # Never fits, whatever rolls over: only raising the cap lets the run go on.
        reached += (
            f"; the next text alone has {needed['characters']:,} characters, more than "
            f"{too_small[0].describe()} allows in all"
        )
        resumes_at = None
    when = (
        f"It goes on by itself at {local_time(resumes_at)}, or sooner once the cap is raised"
        if resumes_at
        else "It goes on once the cap is raised"
    )
    message = (
        f"{reached[0].upper()}{reached[1:]}. {when} (Bulk translation → Budgets). "
        "Nothing is lost: what was translated is kept and the rest waits."
    )
    return BudgetExceededError(message, resumes_at, needed)


def cap_reached(cap: Cap, spent: Spent) -> str:
    """ "the daily cap on automatic sync is reached (99,980 of 100,000 characters today)"."""
    figures = []
    if cap.characters is not None:
        figures.append(f"{spent.characters:,} of {cap.characters:,} characters")
    if cap.cost is not None:
        currency = get_settings().CURRENCY
        figures.append(f"{spent.cost:.2f} of {cap.cost:.2f} {currency}")
    return f"{cap.describe()} is reached ({', '.join(figures)} {SPENT_WHEN[cap.period]})"


def local_time(moment: datetime) -> str:
    local = timezone.localtime(moment, timezone.get_default_timezone())
    return local.strftime("%Y-%m-%d %H:%M %Z")


def has_room(run: Run) -> bool:
    """Whether every cap has room again for what the run's refused request needed."""
    needed = run.budget_needs or {}
    characters = int(needed.get("characters") or 1)
    cost = Decimal(str(needed.get("cost") or 0))
    now = timezone.now()
    for cap in caps_for(run.origin, profiles_of_run(run)):
        spent = spent_against(cap, run, now)
        if cap.characters is not None and spent.characters + characters > cap.characters:
            return False
        if cap.cost is not None and (spent.cost >= cap.cost or spent.cost + cost > cap.cost):
            return False
    return True
