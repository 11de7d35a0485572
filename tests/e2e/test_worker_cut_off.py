"""A worker cut off from the database mid-claim, for three leases, then let back.

The worker runs in a network namespace of its own (``netns``) and reaches PostgreSQL through
its link. Once it holds a claim the link is cut: its queries hang, its lease is not renewed,
and a worker on the host takes its units over when the lease lapses. When the link is back,
the cut worker's late writes meet a lease that is no longer its own and are refused (the
fence): no object is written twice, no unit is counted twice, and nothing is paid twice beyond
the request it had in flight. Then it goes back to work.

PostgreSQL only (a network link to cut); needs root for ``ip netns``. It fails, never skips,
when either is missing.
"""

from __future__ import annotations

import json
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from tests.e2e.faults import assert_nothing_duplicated, record_trial
from tests.e2e.helpers import (
    ROOT,
    WorkerPool,
    assert_run_is_whole,
    assert_site_translated,
    db_worker_args,
    manage,
    read_translator_log,
    run_progress,
    sent_twice,
    stall_report,
)
from tests.e2e.netns import namespace_with_relay
from tests.fake_deepl import FakeDeepL

LEASE_SECONDS = 4  # the crash settings' lease
CUT_SECONDS = 3 * LEASE_SECONDS
STALL_TIMEOUT = 180
CUT_WORKER = "cut-off"


def through_relay(database_url: str, host: str, port: int) -> str:
    parts = urlsplit(database_url)
    netloc = f"{parts.username}@{host}:{port}" if parts.username else f"{host}:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


def query(env, sql: str, *params):
    with psycopg.connect(env["DATABASE_URL"]) as conn:
        return conn.execute(sql, params).fetchone()


RUNNING_UNITS = "SELECT {} FROM wagtail_bulk_translate_unit WHERE status = 'running'"


def running_units(env) -> int:
    return query(env, RUNNING_UNITS.format("COUNT(*)"))[0]


def claim_tokens(env) -> list[str]:
    """The lease tokens of the running units: before the host's workers start, the cut-off
    worker's claim."""
    return query(env, RUNNING_UNITS.format("array_agg(DISTINCT lease_token::text)"))[0] or []


def still_claimed(env, tokens: list[str]) -> int:
    """Units still running under one of ``tokens`` (not yet taken over)."""
    sql = RUNNING_UNITS.format("COUNT(*)") + " AND lease_token::text = ANY(%s)"
    return query(env, sql, tokens)[0]


def wait_until(condition, what: str, env, timeout: float = STALL_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout}s\n{stall_report(env)}"
        time.sleep(0.2)


def supervise_until_done(env, pool: WorkerPool) -> dict:
    ended, last_progress = 0, time.monotonic()
    while time.monotonic() - last_progress < STALL_TIMEOUT:
        pool.restart_dead()
        status, now_ended = run_progress(env)
        if status not in ("pending", "running"):
            return manage_json(env)
        if now_ended > ended:
            ended, last_progress = now_ended, time.monotonic()
        time.sleep(0.5)
    raise AssertionError(f"No unit ended for {STALL_TIMEOUT}s\n{stall_report(env)}")


def manage_json(env) -> dict:
    return json.loads(manage(env, "bulk_translate", "status", "--json").stdout)


TASKS_STARTED_SINCE = """
from datetime import datetime
from django_tasks_db.models import DBTaskResult
since = datetime.fromisoformat(%(since)r)
print(DBTaskResult.objects.filter(started_at__gt=since, worker_ids__contains=[%(worker)r]).count())
"""


def tasks_started_by_cut_worker(env, since) -> int:
    script = TASKS_STARTED_SINCE % {"since": since.isoformat(), "worker": CUT_WORKER}
    return int(manage(env, "shell", "--no-imports", "-c", script).stdout.strip())


def last_call(env, pid: int) -> tuple[int, str] | None:
    """The cut-off worker's last translator call so far (its log's (pid, call))."""
    calls = [entry[:2] for entry in read_translator_log(env["translator_log"]) if entry[0] == pid]
    return calls[-1] if calls else None


SESSIONS = """SELECT pid, state, wait_event, now() - xact_start, left(query, 120)
FROM pg_stat_activity WHERE datname = current_database()"""


def sessions_report(env) -> str:
    """The database's sessions: who waits on whom when a claim is not taken over."""
    with psycopg.connect(env["DATABASE_URL"]) as conn:
        return "\n".join(str(row) for row in conn.execute(SESSIONS).fetchall())


@contextmanager
def worker_in(ns, env: dict, port: int):
    """A db_worker in the namespace ``ns``, reaching the database through the relay on ``port``."""
    url = through_relay(env["DATABASE_URL"], ns.host_ip, port)
    worker_env = {k: v for k, v in env.items() if k != "translator_log"} | {"DATABASE_URL": url}
    with open(Path(env["translator_log"]).with_name("cut-worker.log"), "w") as log:
        worker = subprocess.Popen(
            ns.command(db_worker_args(CUT_WORKER)), env=worker_env, cwd=ROOT,
            stdout=subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
        try:
            yield worker
        finally:
            worker.terminate()
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()


def cut_until_taken_over(env, ns, pool: WorkerPool) -> None:
    """Cut the link for three leases, and until the host's workers took the claim over."""
    cut_claim = claim_tokens(env)
    assert cut_claim, "the cut-off worker's claim ended before the cut"
    ns.cut()
    cut_at = time.monotonic()
    pool.spawn_all()
    while time.monotonic() - cut_at < CUT_SECONDS or still_claimed(env, cut_claim):
        assert time.monotonic() - cut_at < STALL_TIMEOUT, (
            f"the claim was not taken over\n{sessions_report(env)}"
        )
        pool.restart_dead()
        time.sleep(0.5)


def test_worker_cut_off_from_the_database_for_three_leases(postgres_env):
    env = postgres_env
    manage(env, "seed_demo", "--pages", "40")
    server = urlsplit(env["DATABASE_URL"])
    relay_to = (server.hostname or "127.0.0.1", server.port or 5432)
    with namespace_with_relay(relay_to) as (ns, port), worker_in(ns, env, port) as cut_worker:
        pool, started = WorkerPool(env, size=0), time.monotonic()
        try:
            manage(env, "bulk_translate", "start", "--all", "--locales", "fr,de,es",
                   "--publish", "mirror")  # fmt: skip
            wait_until(lambda: running_units(env) > 0, "the cut-off worker's claim", env)
            pool.size = 2  # the host's workers, started at the cut, take the claim over
            cut_until_taken_over(env, ns, pool)
            restored_at = query(env, "SELECT now()")[0]
            in_flight = last_call(env, cut_worker.pid)
            ns.restore()
            summary = supervise_until_done(env, pool)
        finally:
            pool.stop()
        record_trial(env, "a worker cut off for 3 leases", summary, started)
        assert summary["units"]["failed"] == 0, summary
        assert_run_is_whole(env, summary)  # succeeded, no duplicate page, tree clean
        assert_nothing_duplicated(env)
        # The request it had in flight when cut (its answer could not be stored) may be sent
        # again by the worker that took over; nothing else.
        log = read_translator_log(env["translator_log"])
        assert sent_twice([entry for entry in log if entry[:2] != in_flight]) == [], "paid twice"

        # Back to work: alone, it translates the French pages again.
        manage(env, "bulk_translate", "start", "--all", "--locales", "fr", "--mode", "refresh")
        again = supervise_until_done(env, WorkerPool(env, size=0))
        assert cut_worker.poll() is None, "the cut-off worker exited"
    assert again["status"] == "succeeded", again
    assert tasks_started_by_cut_worker(env, restored_at) > 0


def address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80


def with_deepl(env: dict, server_url: str) -> dict:
    """The crash settings with DeepL's fake as the translator: short timeouts, one retry (and a
    lease longer than a call with them, as system check E014 requires)."""
    overrides = json.loads(env["WBT_SETTINGS"]) | {"LEASE_SECONDS": 12}
    overrides["TRANSLATOR"] = {
        "CLASS": "wagtail_bulk_translate.translators.deepl.DeepLTranslator",
        "OPTIONS": {"SERVER_URL": server_url, "TIMEOUT": 2, "RETRIES": 1},
    }
    return {**env, "WBT_SETTINGS": json.dumps(overrides), "DEEPL_AUTH_KEY": "cut-off-key"}


RETRIED_UNITS = "SELECT COUNT(*) FROM wagtail_bulk_translate_unit WHERE error_message LIKE %s"


def test_worker_cut_off_from_the_translator_backs_off_and_finishes(postgres_env):
    manage(postgres_env, "seed_demo", "--pages", "12")
    database = address(postgres_env["DATABASE_URL"])
    with FakeDeepL() as deepl, namespace_with_relay(database, address(deepl.url)) as relays:
        ns, db_port, deepl_port = relays
        env = with_deepl(postgres_env, f"http://{ns.second_host_ip}:{deepl_port}")
        with worker_in(ns, env, db_port) as worker:
            manage(env, "bulk_translate", "start", "--all", "--locales", "fr,de",
                   "--publish", "mirror")  # fmt: skip
            wait_until(lambda: deepl.translate_requests(), "a first request to DeepL", env)
            ns.cut_route_to(ns.second_host_ip)
            # Cut until units went back to pending after a translator timeout, then restored.
            wait_until(lambda: query(env, RETRIED_UNITS, "%retrying%")[0] > 0, "a back-off", env)
            ns.restore_route_to(ns.second_host_ip)
            summary = supervise_until_done(env, WorkerPool(env, size=0))
            assert worker.poll() is None, "the worker exited"
    assert summary["status"] == "succeeded", summary
    assert summary["units"]["failed"] == 0, summary
    assert_nothing_duplicated(env)
    assert_site_translated(env, ("fr", "de"))
