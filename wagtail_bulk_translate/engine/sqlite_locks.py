"""The plugin's tasks on SQLite without the install section's options (W007): writers wait.

SQLite's default (deferred) transactions read first and take the write lock later; when two
connections do that at once, SQLite fails one of them at once with "database is locked",
without waiting (it will not wait on what could be a deadlock). A transaction that takes the
write lock when it begins (``BEGIN IMMEDIATE``) waits for it instead, up to the busy timeout.
Only the plugin's own tasks run this way; the site's connections keep their settings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

from django.db import connection

F = TypeVar("F", bound=Callable[..., Any])

# What the install section's options give: writers wait this long for the lock (milliseconds).
BUSY_TIMEOUT_MS = 30_000


@contextmanager
def writers_wait() -> Iterator[None]:
    """Within: on SQLite, transactions take the write lock at BEGIN and wait up to 30 s."""
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    sqlite: Any = connection  # the SQLite wrapper: transaction_mode is read at each BEGIN
    mode = sqlite.transaction_mode
    if mode is None or mode == "DEFERRED":
        sqlite.transaction_mode = "IMMEDIATE"
    timeout = busy_timeout()
    if timeout < BUSY_TIMEOUT_MS:
        set_busy_timeout(BUSY_TIMEOUT_MS)
    try:
        yield
    finally:
        sqlite.transaction_mode = mode
        if timeout < BUSY_TIMEOUT_MS and connection.connection is not None:
            set_busy_timeout(timeout)


def busy_timeout() -> int:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout")
        return int(cursor.fetchone()[0])


def set_busy_timeout(milliseconds: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA busy_timeout = {int(milliseconds)}")


def in_writers_wait(func: F) -> F:
    """A task function run within :func:`writers_wait`."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with writers_wait():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
