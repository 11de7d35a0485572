"""The plugin's tasks on PostgreSQL: a transaction left waiting on a vanished worker ends.

A worker cut off from the database in the middle of a transaction (a network partition, a
frozen VM) leaves its session "idle in transaction" on the server, holding the row locks of the
units it claimed; the server only notices the client is gone when TCP keepalives give up,
hours later by default. Until then the other workers wait on those locks, and the lease that
should hand the claim over cannot (tried: a worker cut off for three leases, and no other
worker took its units over). So each of the plugin's tasks sets
``idle_in_transaction_session_timeout`` on its session: a transaction that waits on its worker
for longer than a lease (the worker's claim has lapsed by then, and its writes would be fenced
out anyway) is ended by the server, and its locks with it. The worker, if it comes back, finds
its connection closed, reconnects and gives its claim back (:mod:`.connections`). The setting
is restored when the task ends: the site's other work on the same connection keeps its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

from django.db import DatabaseError, connection

from ..conf import get_settings
from .connections import drop_connection

F = TypeVar("F", bound=Callable[..., Any])

# A healthy worker's transaction can wait on Python for seconds on a loaded machine (a large
# page's write): never end one sooner than this, even with a short lease.
MIN_IDLE_SECONDS = 30


def idle_timeout_ms() -> int:
    return int(max(get_settings().LEASE_SECONDS, MIN_IDLE_SECONDS) * 1000)


@contextmanager
def idle_transactions_bounded() -> Iterator[None]:
    """Within: on PostgreSQL, a transaction idle for longer than a lease is ended by the server."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    previous = set_idle_timeout(f"{idle_timeout_ms()}ms")
    try:
        yield
    finally:
        if connection.connection is not None:  # a lost connection took the setting with it
            try:
                set_idle_timeout(previous)
            except DatabaseError:  # a broken connection: replaced at its next use
                drop_connection()


def set_idle_timeout(value: str) -> str:
    """Set this session's idle-in-transaction timeout; returns the value it had."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('idle_in_transaction_session_timeout'),"
            " set_config('idle_in_transaction_session_timeout', %s, false)",
            [value],
        )
        return cursor.fetchone()[0]


def in_bounded_transactions(func: F) -> F:
    """A task function run within :func:`idle_transactions_bounded`."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with idle_transactions_bounded():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
