"""Crash-proof runs: real worker processes killed with SIGKILL, on SQLite or PostgreSQL.

Workers die at a chosen point of a unit (before the translator call, right after it, inside
the target write) or at random every few seconds, and are restarted like a process manager
would. Every run must still end with every unit terminal and succeeded, no duplicate target,
and (for the chosen points) no string sent to the translator twice.
"""

from __future__ import annotations

import os
import random
import time

import pytest

from tests.e2e.faults import record_trial, resent_count
from tests.e2e.helpers import (
    assert_run_is_whole,
    read_translator_log,
    sent_twice,
    translate_seeded_site,
)


@pytest.mark.parametrize("crash_at", ["before_translate", "after_translate", "during_write"])
def test_worker_killed_mid_unit(crash_env, crash_at):
    crash_env["WBT_CRASH_AT"] = crash_at
    summary, pool = translate_seeded_site(crash_env, pages=20, workers=1, timeout=180)
    assert pool.deaths == 1, "the crash point must have fired exactly once"
    assert_run_is_whole(crash_env, summary)
    log = read_translator_log(crash_env["translator_log"])
    assert log, "the translator was never called"
    assert sent_twice(log) == [], "a string was billed twice"


def test_random_sigkills_with_three_workers(crash_env):
    # The fault campaign (`make faults`) gives each trial a seed of its own.
    chaos = random.Random(int(os.environ.get("WBT_CHAOS_SEED", "20261203")))
    started = time.monotonic()
    summary, pool = translate_seeded_site(crash_env, pages=60, workers=3, timeout=400, chaos=chaos)
    record_trial(crash_env, "random SIGKILLs, 3 workers", summary, started)
    assert summary["units_total"] >= 180
    assert pool.deaths >= 3, "the chaos loop must have killed workers"
    assert_run_is_whole(crash_env, summary)
    # A kill can land between the provider's answer and the commit that stores it: that
    # request's texts are paid again. Nothing else may be: every answer is stored the moment it
    # arrives (per request, not per claim), so re-sent texts are at most the texts of the killed
    # workers' in-flight requests (each translate_texts call is one request).
    log = read_translator_log(crash_env["translator_log"])
    assert sent_twice(log, killed=pool.killed) == []
    assert resent_count(log) <= len(in_flight_texts(log, pool.killed))


def in_flight_texts(log: list, killed: set[int]) -> list[tuple[str, str]]:
    """(locale, text) of the last request of each killed worker: the only ones a kill loses."""
    last_call = {pid: call for pid, call, _locale, _text in log}
    return [
        (locale, text)
        for pid, call, locale, text in log
        if pid in killed and call == last_call[pid]
    ]
