"""The periods of the caps: a run's whole life, a calendar day, a calendar month.

Days and months are calendar ones in the site's ``TIME_ZONE`` (not the admin user's), as
providers bill and editors think: spending counts from midnight, and a run paused by a daily cap
goes on at the next midnight. A rolling 24-hour window would leave no single moment to tell an
editor, and would need the ledger's every row to find one.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.utils import timezone

RUN = "run"
DAILY = "daily"
MONTHLY = "monthly"
PERIODS = (RUN, DAILY, MONTHLY)

# How each period reads in messages: "the daily cap", "12,000 spent today".
SPENT_WHEN = {RUN: "for this run", DAILY: "today", MONTHLY: "this month"}


def local_midnight(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_default_timezone())


def local_today(now: datetime) -> date:
    return timezone.localtime(now, timezone.get_default_timezone()).date()


def period_start(period: str, now: datetime) -> datetime | None:
    """When the current period began (None: a run's cap counts the run's whole life)."""
    today = local_today(now)
    if period == DAILY:
        return local_midnight(today)
    if period == MONTHLY:
        return local_midnight(today.replace(day=1))
    return None


def period_end(period: str, now: datetime) -> datetime | None:
    """When the current period rolls over (None: a run's cap never does)."""
    today = local_today(now)
    if period == DAILY:
        return local_midnight(today + timedelta(days=1))
    if period == MONTHLY:
        first_of_next = (today.replace(day=28) + timedelta(days=4)).replace(day=1)
        return local_midnight(first_of_next)
    return None
