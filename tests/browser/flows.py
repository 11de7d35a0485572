"""Steps the browser tests share."""

from __future__ import annotations

import time

from tests.browser.conftest import RUN_TIMEOUT_MS, LiveSite

ACTIVE = ("pending", "running", "paused")


def wait_for_run(site: LiveSite, run_id: int, timeout_ms: int = RUN_TIMEOUT_MS) -> str:
    """The run's status once it is no longer active (bounded; polls the database)."""
    deadline = time.monotonic() + timeout_ms / 1000
    status = None
    while time.monotonic() < deadline:
        [(status,)] = site.query(
            "SELECT status FROM wagtail_bulk_translate_run WHERE id = ?", run_id
        )
        if status not in ACTIVE:
            return status
        time.sleep(0.5)
    raise AssertionError(f"Run {run_id} still {status} after {timeout_ms / 1000:.0f}s")
