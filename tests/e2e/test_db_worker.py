"""End to end with real processes: the demo site, the CLI and several real ``db_worker``s."""

from __future__ import annotations

from tests.e2e.helpers import (
    assert_site_translated,
    manage,
    start_whole_site_run,
    start_workers,
    stop_workers,
    wait_for_run,
)


def test_whole_site_translates_with_real_workers(site_env):
    manage(site_env, "seed_demo", "--pages", "24")
    workers = start_workers(site_env, 2)
    try:
        start_whole_site_run(site_env)
        summary = wait_for_run(site_env)
    finally:
        stop_workers(workers)
    assert summary["status"] == "succeeded", summary
    assert summary["units"]["failed"] == 0
    assert summary["units"]["succeeded"] == summary["units_total"] > 0
    assert_site_translated(site_env, ("fr", "de"))
