"""Keeping a claim's lease alive while its steps run, from a thread of its own.

A step can outlast the lease: a language-model request may take minutes, a Wagtail write of a
large page many seconds on a loaded machine. Renewing only between steps let such a unit's
lease expire mid-step; another worker then took it over and this one's work was fenced out,
paid for and thrown away, again and again. A :class:`LeaseKeeper` renews the lease of every unit
the claim still holds every third of ``LEASE_SECONDS`` while the claim is processed, on its own
database connection (closed when it stops), so the lease only expires when the worker process
is gone or cannot reach the database.

The keeper never decides anything: a unit whose lease was lost anyway (the process was frozen
longer than the lease, the run was stopped) is no longer renewed, every write stays fenced by
the lease token, and the worker checks it still holds its units before each provider request
(:func:`.claims.still_held`), so a lost unit is neither written nor paid for again.
"""

from __future__ import annotations

import logging
import threading
import time
from types import TracebackType

from django.db import DatabaseError, connection, connections

from ..conf import get_settings
from . import claims
from .connections import drop_connection, is_connection_lost

logger = logging.getLogger(__name__)

RETRY_DELAY_SECONDS = 0.02
MAX_RETRY_DELAY_SECONDS = 0.2


class LeaseKeeper:
    """``with LeaseKeeper(token): ...`` renews the claim's lease until the block ends."""

    def __init__(self, token: str, interval: float | None = None) -> None:
        self.token = token
        self.interval = get_settings().LEASE_SECONDS / 3 if interval is None else interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> LeaseKeeper:
        # A caller inside a transaction (a test's, an ImmediateBackend task in a request) holds
        # the claim uncommitted: another connection cannot see its units, so only the renewals
        # between steps (Claim.keep_lease) apply.
        if not connection.in_atomic_block:
            self._thread = threading.Thread(
                target=self._run, name=f"lease-keeper-{self.token[:8]}", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                self._renew()
        finally:
            # This thread's own connection: closed here, or it would stay open per claim.
            connections.close_all()

    def _renew(self) -> None:
        # A busy database (a write transaction of this claim's own worker on SQLite, a lock
        # wait cut short) usually frees within milliseconds: keep trying until the next beat
        # rather than leave the lease a whole beat closer to expiring.
        deadline = time.monotonic() + self.interval
        delay = RETRY_DELAY_SECONDS
        while True:
            try:
                claims.renew_unlocked_leases(self.token)
                return
            except DatabaseError as err:
                if is_connection_lost(err):
                    drop_connection()  # this thread's connection: a new one at the next try
                if time.monotonic() + delay > deadline:
                    logger.warning(
                        "Could not renew the lease of claim %s", self.token, exc_info=True
                    )
                    return
            if self._stop.wait(delay):
                return
            delay = min(delay * 2, MAX_RETRY_DELAY_SECONDS)
