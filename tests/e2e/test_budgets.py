"""End to end with real workers: a run reaches a daily cap and pauses with nothing lost; the cap
raised in the settings (workers restarted with it), the janitor resumes it and it finishes,
every text billed once."""

from __future__ import annotations

import json
import time

from tests.e2e.helpers import (
    assert_site_translated,
    manage,
    read_translator_log,
    sent_twice,
    start_workers,
    stop_workers,
)


def with_settings(env: dict, **values) -> dict:
    return {**env, "WBT_SETTINGS": json.dumps({**json.loads(env["WBT_SETTINGS"]), **values})}


def status(env) -> dict:
    return json.loads(manage(env, "bulk_translate", "status", "--json").stdout)


def wait_while(env, statuses: tuple[str, ...], timeout: float = 240) -> dict:
    """Poll the run's status while it is one of ``statuses``; its summary once it is not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        summary = status(env)
        if summary["status"] not in statuses:
            return summary
        time.sleep(1)
    raise AssertionError(f"The run was still {statuses} after {timeout}s: {summary}")


def test_a_daily_cap_pauses_the_run_and_raising_it_lets_it_finish(crash_env):
    env = with_settings(crash_env, LEASE_SECONDS=30, STALL_SECONDS=10)
    manage(env, "seed_demo", "--pages", "12")
    start = ("bulk_translate", "start", "--all", "--locales", "fr,de", "--publish", "mirror")
    estimate = json.loads(manage(env, *start, "--estimate", "--json").stdout)
    cap = estimate["total_characters"] // 3
    capped = with_settings(env, BUDGETS={"daily": {"characters": cap}})

    workers = start_workers(capped, 2)
    try:
        manage(capped, *start)
        paused = wait_while(capped, ("pending", "running"))
    finally:
        stop_workers(workers)
    assert paused["status"] == "paused", paused
    assert paused["error_code"] == "budget_exceeded"
    assert "The daily cap (all runs) is reached" in paused["error_message"]
    assert paused["units"]["failed"] == 0
    assert paused["units"]["pending"] > 0
    assert paused["budget"]["paused_by_budget"] is True
    assert paused["budget"]["resumes_at"] is not None  # the next midnight
    assert 0 < paused["characters_sent"] <= cap  # never past a character cap
    assert paused["budget"]["caps"][0]["characters_left"] < cap

    raised = with_settings(env, BUDGETS={"daily": {"characters": cap * 10}})
    workers = start_workers(raised, 2)
    try:
        # The janitor finds room and resumes it.
        summary = wait_while(raised, ("pending", "running", "paused"))
    finally:
        stop_workers(workers)
    assert summary["status"] == "succeeded", summary
    assert summary["units"]["succeeded"] == summary["units_total"] > 0
    assert summary["budget"]["paused_by_budget"] is False
    assert sent_twice(read_translator_log(crash_env["translator_log"])) == []
    assert_site_translated(raised, ("fr", "de"))
