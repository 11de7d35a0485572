"""A database connection lost mid-claim fails no unit: the worker reconnects and carries on.

A real restart of PostgreSQL under real workers is tests/e2e/test_database_restart.py.
"""

from __future__ import annotations

import pytest
from django.db import InterfaceError, OperationalError

from tests.engine.test_failures import FR, flaky, times_sent
from tests.lookups import counts, unit_of
from wagtail_bulk_translate.engine.connections import is_connection_lost
from wagtail_bulk_translate.models import RunStatus, UnitStatus

pytestmark = pytest.mark.django_db

LOST = [
    OperationalError("server closed the connection unexpectedly"),
    OperationalError(
        'connection failed: connection to server at "127.0.0.1", port 5432 failed: '
        "Connection refused"
    ),
    OperationalError("terminating connection due to administrator command"),
    OperationalError("the database system is shutting down"),
    OperationalError("the connection is closed"),
    InterfaceError("connection already closed"),
]


@pytest.mark.parametrize("error", LOST, ids=str)
def test_a_lost_connection_is_told_apart(error):
    assert is_connection_lost(error)


@pytest.mark.parametrize(
    "error",
    [OperationalError("database is locked"), OperationalError("no such column: x"), OSError()],
    ids=str,
)
def test_other_errors_are_not_a_lost_connection(error):
    assert not is_connection_lost(error)


def test_a_connection_lost_mid_claim_fails_no_unit_and_costs_no_attempt(
    site, begin, task_queue, recording_translator, conf
):
    conf(RETRY_BACKOFF_SECONDS=0, MAX_ATTEMPTS=1, UNITS_PER_CLAIM=1, MAX_UNITS_PER_CLAIM=1)
    lost = OperationalError("server closed the connection unexpectedly")
    recording_translator.overrides["Story 0"] = flaky(lost, times=1)
    run = begin(locales=FR)
    task_queue.drain()

    unit = unit_of(run, site.story)
    assert unit.status == UnitStatus.SUCCEEDED
    assert unit.attempts == 1  # given back, not retried: with MAX_ATTEMPTS 1 it still succeeds
    assert unit.error_code == ""
    assert times_sent(recording_translator, "Story 0") == 2
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert counts(run) == {UnitStatus.SUCCEEDED: 4}
    assert not run.task_failures
