"""Crash-proof runs: real worker processes killed with SIGKILL, on SQLite or PostgreSQL.

Workers die at a chosen point of a unit (before the translator call, right after it, inside
the target write) or at random every few seconds, and are restarted like a process manager
would. Every run must still end with every unit terminal and succeeded, no duplicate target,
and (for the chosen points) no string sent to the translator twice.
"""

from __future__ import annotations

import random

import pytest

from tests.e2e.helpers import (
    WorkerPool,
    assert_run_is_whole,
    manage,
    read_translator_log,
    run_with_pool,
    sent_twice,
)


@pytest.mark.parametrize("crash_at", ["before_translate", "after_translate", "during_write"])
def test_worker_killed_mid_unit(crash_env, crash_at):
    crash_env["WBT_CRASH_AT"] = crash_at
    manage(crash_env, "migrate", "--verbosity", "0")
    manage(crash_env, "seed_demo", "--pages", "20")
    pool = WorkerPool(crash_env, size=1)
    try:
        summary = run_with_pool(crash_env, pool, timeout=180)
    finally:
        pool.stop()
    assert pool.deaths == 1, "the crash point must have fired exactly once"
    assert_run_is_whole(crash_env, summary)
    log = read_translator_log(crash_env["translator_log"])
    assert log, "the translator was never called"
    assert sent_twice(log) == [], "a string was billed twice"


def test_random_sigkills_with_three_workers(crash_env):
    manage(crash_env, "migrate", "--verbosity", "0")
    manage(crash_env, "seed_demo", "--pages", "60")
    pool = WorkerPool(crash_env, size=3)
    try:
        summary = run_with_pool(crash_env, pool, timeout=400, chaos=random.Random(20261203))
    finally:
        pool.stop()
    assert summary["units_total"] >= 180
    assert pool.deaths >= 3, "the chaos loop must have killed workers"
    assert_run_is_whole(crash_env, summary)
    # A kill can land between the provider's answer and the commit that stores it: that call's
    # strings are paid again. Nothing else may be.
    log = read_translator_log(crash_env["translator_log"])
    assert sent_twice(log, killed=pool.killed) == []
