"""A database connection lost mid-task (a restart, a failover): reconnect instead of failing.

Django does not reconnect by itself: a connection the server dropped stays broken until it is
closed, and every query on it fails. The plugin's tasks close it at their step boundaries, wait
for the database to answer again, and carry on; the units of the interrupted claim are given
back without counting an attempt (nothing was wrong with them).
"""

from __future__ import annotations

import logging
import time

from django.db import DatabaseError, InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

# What PostgreSQL (psycopg) and SQLite say when the connection itself is gone, not the query.
LOST_CONNECTION_MARKERS = (
    "connection refused",
    "server closed the connection",
    "terminating connection",
    "connection already closed",
    "connection is closed",
    "connection is lost",
    "connection not open",
    "could not connect",
    "consuming input failed",
    "no connection to the server",
    "ssl connection has been closed",
    "the database system is shutting down",
    "the database system is starting up",
    "the database system is in recovery mode",
    "cannot operate on a closed database",
)
# How long a task waits for the database to come back before it gives up (and fails).
RECONNECT_WAIT_SECONDS = 60.0
RECONNECT_POLL_SECONDS = 1.0


def is_connection_lost(err: BaseException) -> bool:
    """The error says the connection to the database is gone (not that a query was wrong)."""
    if isinstance(err, InterfaceError):
        return True
    if not isinstance(err, OperationalError):
        return False
    text = str(err).lower()
    return any(marker in text for marker in LOST_CONNECTION_MARKERS)


def drop_connection() -> None:
    """Close this thread's broken connection: the next query opens a new one."""
    if connection.in_atomic_block:
        return  # within a transaction (a test's) the connection cannot be swapped: it is kept
    try:
        connection.close()
    except DatabaseError:
        # Closing a connection the server already dropped may fail too; it is discarded anyway.
        connection.connection = None


def reconnect(wait_seconds: float = RECONNECT_WAIT_SECONDS) -> None:
    """Drop the broken connection and wait until a new one answers; raise once time is up."""
    deadline = time.monotonic() + wait_seconds
    while True:
        drop_connection()
        try:
            connection.ensure_connection()
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            return
        except DatabaseError as err:
            if not is_connection_lost(err) or time.monotonic() >= deadline:
                raise
            logger.info(
                "Database unreachable, retrying in %.0f s (%s)", RECONNECT_POLL_SECONDS, err
            )
        time.sleep(RECONNECT_POLL_SECONDS)
