"""The demo's workers come back when they exit, and stop for good when the demo ends."""

from __future__ import annotations

import sys
import time

import pytest

from demo import supervisor
from demo.supervisor import Supervisor

EXITS = [sys.executable, "-c", "pass"]
STAYS = [sys.executable, "-c", "import time; time.sleep(60)"]


@pytest.fixture(autouse=True)
def short_pause(monkeypatch):
    monkeypatch.setattr(supervisor, "RESTART_PAUSE_SECONDS", 0.1)


def test_a_process_that_exits_is_started_again():
    workers = Supervisor([EXITS, STAYS]).start()
    try:
        deadline = time.monotonic() + 30
        while workers.restarts < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert workers.restarts >= 2
        assert workers.processes[1].poll() is None  # the one that did not exit is left alone
    finally:
        workers.stop()


def test_stop_ends_every_process_and_starts_none_again():
    workers = Supervisor([STAYS, STAYS]).start()
    workers.stop()
    restarts = workers.restarts
    time.sleep(0.3)
    assert all(process.poll() is not None for process in workers.processes)
    assert workers.restarts == restarts == 0
