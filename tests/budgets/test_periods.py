"""Calendar days and months in the site's TIME_ZONE, whatever the admin user's."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from wagtail_bulk_translate.budgets.periods import DAILY, MONTHLY, RUN, period_end, period_start


def test_a_day_runs_from_midnight_to_midnight_in_the_sites_time_zone(settings):
    settings.TIME_ZONE = "Europe/Paris"
    now = datetime(2026, 12, 5, 23, 30, tzinfo=UTC)  # already the 6th in Paris
    assert period_start(DAILY, now) == datetime(2026, 12, 5, 23, 0, tzinfo=UTC)
    assert period_end(DAILY, now) == datetime(2026, 12, 6, 23, 0, tzinfo=UTC)


def test_the_users_active_time_zone_does_not_move_the_day(settings):
    settings.TIME_ZONE = "UTC"
    now = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    with timezone.override("Pacific/Auckland"):
        assert period_start(DAILY, now) == datetime(2026, 12, 5, tzinfo=UTC)


def test_a_month_rolls_over_on_the_first_even_in_december(settings):
    settings.TIME_ZONE = "UTC"
    now = datetime(2026, 12, 31, 18, 0, tzinfo=UTC)
    assert period_start(MONTHLY, now) == datetime(2026, 12, 1, tzinfo=UTC)
    assert period_end(MONTHLY, now) == datetime(2027, 1, 1, tzinfo=UTC)
    assert period_end(MONTHLY, datetime(2026, 1, 31, tzinfo=UTC)) == datetime(
        2026, 2, 1, tzinfo=UTC
    )


def test_a_run_cap_has_no_period():
    now = timezone.now()
    assert period_start(RUN, now) is None
    assert period_end(RUN, now) is None
