"""What was spent against a cap: sums over the billing ledger, plus the requests in flight.

Characters are the ledger's ``sent_characters`` (the text without its markup, as the preflight
counts them, known before a request goes out, so a character cap is never passed), for every
translator, unanswered requests included (the provider may have billed them). Money is the
``cost`` of the translator's reported spend (``SpentRequest``). A request about to go out counts
through its :class:`~wagtail_bulk_translate.models.BudgetReservation` until it is in the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import QuerySet, Sum

from ..models import BudgetReservation, Run, SentText, SpentRequest
from .caps import Cap
from .periods import period_start


@dataclass(frozen=True)
class Spent:
    characters: int = 0
    cost: Decimal = Decimal(0)

    def __add__(self, other: Spent) -> Spent:
        return Spent(self.characters + other.characters, self.cost + other.cost)

    def __sub__(self, other: Spent) -> Spent:
        return Spent(self.characters - other.characters, self.cost - other.cost)


def spent_against(cap: Cap, run: Run | None, now: datetime) -> Spent:
    """What the ledger and the live reservations count against ``cap`` for ``run`` (None: a
    run not started yet, which has spent nothing of its own cap)."""
    if run is None and period_start(cap.period, now) is None:
        return Spent()
    characters = cost = None
    if cap.characters is not None:
        sent = counted(SentText.objects.all(), cap, run, now)
        characters = total(sent, "sent_characters") + total(held(cap, run, now), "characters")
    if cap.cost is not None:
        requests = counted(SpentRequest.objects.all(), cap, run, now)
        cost = total(requests, "cost") + total(held(cap, run, now), "cost")
    return Spent(int(characters or 0), Decimal(cost or 0))


def counted(rows: QuerySet, cap: Cap, run: Run | None, now: datetime) -> QuerySet:
    """The ledger rows a cap counts: the run's own, or its period's (of one origin, or all)."""
    start = period_start(cap.period, now)
    if start is None:
        if cap.profile and run:
            return rows.filter(run_id=run.pk, profile=cap.profile)
        return rows.filter(run_id=run.pk) if run else rows.none()
    rows = rows.filter(created_at__gte=start)
    if cap.profile:
        rows = rows.filter(profile=cap.profile)
    return rows.filter(run__origin=cap.origin) if cap.origin else rows


def held(cap: Cap, run: Run | None, now: datetime) -> QuerySet:
    """Live reservations (requests going out now: all within the current period)."""
    live = BudgetReservation.objects.filter(expires_at__gte=now)
    if cap.profile:
        live = live.filter(profile=cap.profile)
    if period_start(cap.period, now) is None:
        return live.filter(run_id=run.pk) if run else live.none()
    return live.filter(run__origin=cap.origin) if cap.origin else live


def total(rows: QuerySet, column: str) -> Decimal | int:
    return rows.aggregate(n=Sum(column))["n"] or 0
