"""The plugin's tasks on SQLite: transactions take the write lock at BEGIN and wait for it."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from wagtail_bulk_translate import tasks
from wagtail_bulk_translate.engine import sqlite_locks

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def plain_sqlite():
    """The connection as `wagtail start` configures SQLite: deferred, a 5 s busy timeout."""
    connection.ensure_connection()
    if connection.vendor != "sqlite":
        yield None
        return
    mode, timeout = connection.transaction_mode, sqlite_locks.busy_timeout()
    connection.transaction_mode = None
    sqlite_locks.set_busy_timeout(5000)
    yield (None, 5000)
    connection.transaction_mode = mode
    sqlite_locks.set_busy_timeout(timeout)


def test_within_writers_wait_sqlite_transactions_begin_immediate_and_wait(plain_sqlite):
    with sqlite_locks.writers_wait():
        with transaction.atomic():
            pass  # BEGIN IMMEDIATE is valid here
        if plain_sqlite is not None:
            assert connection.transaction_mode == "IMMEDIATE"
            assert sqlite_locks.busy_timeout() == sqlite_locks.BUSY_TIMEOUT_MS

    if plain_sqlite is not None:  # the connection is left as it was configured
        assert (connection.transaction_mode, sqlite_locks.busy_timeout()) == plain_sqlite


def test_every_plugin_task_runs_within_writers_wait():
    names = (
        "coordinate_run",
        "process_units",
        "retry_after_quota",
        "janitor_sweep",
        "janitor_guard",
    )
    for name in names:
        assert getattr(tasks, name).func.__wrapped__, name
