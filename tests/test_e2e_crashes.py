"""Crash-proof runs: real worker processes killed with SIGKILL, on SQLite or PostgreSQL.

Workers die at a chosen point of a unit (before the translator call, right after it, inside
the target write) or at random every few seconds, and are restarted like a process manager
would. Every run must still end with every unit terminal and succeeded, no duplicate target,
and (for the chosen points) no string sent to the translator twice.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import time
from collections import Counter

import pytest

from tests.test_e2e_db_worker import (  # noqa: F401
    MANAGE,
    ROOT,
    assert_site_translated,
    manage,
    site_env,
)
from tests.translators import read_translator_log

pytestmark = pytest.mark.e2e

INTEGRITY_REPORT = """
import json
from django.db.models import Count
from wagtail.models import Page
from wagtail_bulk_translate.models import Unit
duplicates = list(
    Page.objects.filter(alias_of__isnull=True)
    .values("translation_key", "locale_id").annotate(n=Count("pk")).filter(n__gt=1)
    .values_list("translation_key", "locale_id", "n")
)
print(json.dumps({
    "duplicate_pages": [[str(k), l, n] for k, l, n in duplicates],
    "running_units": Unit.objects.filter(status="running").count(),
    "tree_problems": [len(p) for p in Page.find_problems()],
}))
"""


@pytest.fixture
def crash_env(site_env, tmp_path):  # noqa: F811
    log = tmp_path / "translator.log"
    log.touch()
    overrides = {
        "TRANSLATOR": {
            "CLASS": "tests.translators.LoggingTranslator",
            "OPTIONS": {"LOG_PATH": str(log)},
        },
        "LEASE_SECONDS": 4,
        "STALL_SECONDS": 3,
        "JANITOR_INTERVAL_SECONDS": 1,
        "RETRY_BACKOFF_SECONDS": 0.2,
        "MAX_ATTEMPTS": 10,
        "UNITS_PER_CLAIM": 6,
        "WORKER_TIME_BUDGET_SECONDS": 20,
    }
    site_env.update(
        DJANGO_SETTINGS_MODULE="tests.e2e_settings",
        WBT_SETTINGS=json.dumps(overrides),
        WBT_CRASH_DIR=str(tmp_path),
    )
    site_env["translator_log"] = str(log)
    return site_env


class WorkerPool:
    """db_worker processes, restarted when they die (as systemd or supervisord would)."""

    def __init__(self, env: dict, size: int) -> None:
        self.env = {k: v for k, v in env.items() if k != "translator_log"}
        self.workers = [self.spawn(i) for i in range(size)]
        self.deaths = 0

    def spawn(self, index: int) -> subprocess.Popen:
        return subprocess.Popen(
            [*MANAGE, "db_worker", "--queue-name", "*", "--interval", "0.1",
             "--no-startup-delay", "--no-reload", "--worker-id", f"crash-{index}-{time.time()}"],
            env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def restart_dead(self) -> None:
        for index, worker in enumerate(self.workers):
            if worker.poll() is not None:
                self.deaths += 1
                self.workers[index] = self.spawn(index)

    def kill_one(self, rng: random.Random) -> None:
        rng.choice(self.workers).send_signal(signal.SIGKILL)

    def stop(self) -> None:
        for worker in self.workers:
            worker.send_signal(signal.SIGTERM)
        for worker in self.workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()


def run_with_pool(env, pool: WorkerPool, *, timeout: float, chaos: random.Random | None = None):
    """Start a run of the whole site and supervise the pool until the run ends."""
    manage(env, "bulk_translate", "start", "--all", "--locales", "fr,de,es", "--publish", "mirror")
    deadline = time.monotonic() + timeout
    next_kill = time.monotonic() + 3
    while time.monotonic() < deadline:
        pool.restart_dead()
        if chaos and time.monotonic() > next_kill:
            pool.kill_one(chaos)
            next_kill = time.monotonic() + chaos.uniform(2, 4)
        status = latest_run_status(env)
        if status not in ("pending", "running"):
            return json.loads(manage(env, "bulk_translate", "status", "--json").stdout)
        time.sleep(0.5)
    raise AssertionError(f"Run did not finish in {timeout}s: it is {status}")


def latest_run_status(env) -> str:
    """Read the run's status straight from the database (a manage.py call takes seconds)."""
    sql = "SELECT status FROM wagtail_bulk_translate_run ORDER BY id DESC LIMIT 1"
    if "DATABASE_URL" in env:
        import psycopg

        with psycopg.connect(env["DATABASE_URL"]) as conn:
            return conn.execute(sql).fetchone()[0]
    with sqlite3.connect(env["SQLITE_PATH"], timeout=30) as conn:
        return conn.execute(sql).fetchone()[0]


def assert_run_is_whole(env, summary: dict) -> None:
    assert summary["status"] == "succeeded", summary
    assert summary["units"]["succeeded"] == summary["units_total"] > 0, summary
    integrity = json.loads(manage(env, "shell", "--no-imports", "-c", INTEGRITY_REPORT).stdout)
    assert integrity == {"duplicate_pages": [], "running_units": 0, "tree_problems": [0] * 5}
    assert_site_translated(env, ("fr", "de", "es"))


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
    sent = Counter(read_translator_log(crash_env["translator_log"]))
    assert sent, "the translator was never called"
    assert [text for text, n in sent.items() if n > 1] == [], "a string was billed twice"


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
    sent = Counter(read_translator_log(crash_env["translator_log"]))
    # A kill can land between the provider's answer and the commit that stores it; those
    # strings are paid again. Nothing else may be: at most one claim's strings per kill.
    resent = sum(n - 1 for n in sent.values() if n > 1)
    assert resent <= pool.deaths * 6 * 40
