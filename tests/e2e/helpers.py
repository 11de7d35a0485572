"""What the end-to-end tests share: manage.py, worker processes, checks of the translated site.

Each test gets its own database (a SQLite file, or a fresh PostgreSQL database when
DATABASE_URL is set, see conftest.py) because the worker processes cannot see pytest's test
transaction.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MANAGE = [sys.executable, str(ROOT / "sandbox" / "manage.py")]


def manage(env, *args, check=True, timeout=300) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [*MANAGE, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"{args} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
        )
    return result


def start_workers(env, count: int, log_dir: Path | None = None) -> list[subprocess.Popen]:
    """``count`` db_worker processes; each one's log goes to a file (``worker_log`` reads it).

    A file, not a pipe: nobody reads a pipe while the worker runs, and once 64 KiB of log
    filled it the worker blocked on its next log line and took no more tasks (a live site's
    worker stopped after a few runs).
    """
    workers = []
    for i in range(count):
        if log_dir is None:
            log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (read after the worker stops)
        else:
            log = open(log_dir / f"worker-{i}.log", "w+")  # noqa: SIM115 (read after the worker stops)
        worker = subprocess.Popen(
            [
                *MANAGE,
                "db_worker",
                "--queue-name",
                "*",
                "--interval",
                "0.2",
                "--no-startup-delay",
                "--no-reload",
                "--worker-id",
                f"e2e-{i}",
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=log,
            text=True,
        )
        worker.log = log
        workers.append(worker)
    return workers


def worker_log(worker: subprocess.Popen) -> str:
    """What a worker started by ``start_workers`` has logged so far."""
    worker.log.flush()
    worker.log.seek(0)
    return worker.log.read()


def stop_workers(workers: list[subprocess.Popen], timeout: float = 30) -> None:
    """Warm shutdown (SIGTERM: finish the current task, then exit), killed if that hangs."""
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def start_whole_site_run(env, locales: str = "fr,de") -> None:
    """``bulk_translate start --all`` into ``locales``, mirroring the source's live status."""
    manage(env, "bulk_translate", "start", "--all", "--locales", locales, "--publish", "mirror")


def wait_for_run(env, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        summary = json.loads(manage(env, "bulk_translate", "status", "--json").stdout)
        if summary["status"] not in ("pending", "running"):
            return summary
        time.sleep(1)
    raise AssertionError(f"Run did not finish in {timeout}s: {summary}")


SITE_REPORT = """
import json
from django.test import Client
from wagtail.blocks import StreamValue, StructValue
from wagtail.blocks.list_block import ListValue
from wagtail.models import Locale, Page

def shape(value):
    if isinstance(value, StreamValue):
        return [[child.block_type, shape(child.value)] for child in value]
    if isinstance(value, StructValue):
        return {name: shape(child) for name, child in value.items()}
    if isinstance(value, ListValue):
        return [shape(child) for child in value]
    return type(value).__name__

client = Client()
report = {}
for code in Locale.objects.values_list("language_code", flat=True):
    pages = Page.objects.filter(locale__language_code=code, depth__gt=1, alias_of__isnull=True)
    report[code] = {}
    for page in pages.specific():
        url = page.get_url()
        response = client.get(url) if page.live else None
        report[code][page.translation_key.hex] = {
            "title": page.title,
            "live": page.live,
            "url": url,
            "status": response.status_code if response else None,
            "body": shape(getattr(page, "body", None)),
        }
print(json.dumps(report))
"""


def assert_site_translated(env, codes) -> None:
    """Every source page has a translation per locale: translated title, same live status,
    same StreamField structure, a URL under the locale's prefix that renders."""
    report = json.loads(manage(env, "shell", "--no-imports", "-c", SITE_REPORT).stdout)
    for code in codes:
        assert set(report[code]) == set(report["en"]), f"{code} is missing pages"
        for key, source in report["en"].items():
            target = report[code][key]
            assert target["title"] != source["title"]
            assert target["live"] == source["live"]
            assert target["body"] == source["body"], "StreamField structure differs"
            assert f"/{code}/" in target["url"]
            if target["live"]:
                assert target["status"] == 200, target["url"]


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


def db_worker_args(name: str) -> list[str]:
    return [*MANAGE, "db_worker", "--queue-name", "*", "--interval", "0.1",
            "--no-startup-delay", "--no-reload", "--worker-id", name]  # fmt: skip


class WorkerPool:
    """Worker processes, restarted when they die (as systemd or supervisord would).

    ``command`` gives a worker's command line from its name: db_worker by default.
    """

    def __init__(self, env: dict, size: int, command=db_worker_args) -> None:
        self.env = {k: v for k, v in env.items() if k != "translator_log"}
        self.command = command
        self.size = size
        self.workers: list[subprocess.Popen] = []
        self.spawn_all()
        self.deaths = 0
        self.killed: set[int] = set()  # pids of the workers that died

    def spawn_all(self) -> None:
        """Start the workers up to ``size`` (after the pool was made bigger)."""
        self.workers += [self.spawn(i) for i in range(len(self.workers), self.size)]

    def spawn(self, index: int) -> subprocess.Popen:
        return subprocess.Popen(
            self.command(f"crash-{index}-{time.time()}"),
            env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def restart_dead(self) -> None:
        for index, worker in enumerate(self.workers):
            if worker.poll() is not None:
                self.deaths += 1
                self.killed.add(worker.pid)
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
    """Start a run of the whole site and supervise the pool until the run ends.

    ``timeout`` bounds a stall, not the run: the run fails the test only when no unit ends for
    that long. With ``chaos``, a worker is killed again only once units have ended since the
    previous kill (and 2-4 s later), so kills follow progress, not the clock: a loaded machine
    slows the run and the kills alike.
    """
    manage(env, "bulk_translate", "start", "--all", "--locales", "fr,de,es", "--publish", "mirror")
    status, ended = run_progress(env)
    last_progress = time.monotonic()
    next_kill, ended_at_kill = time.monotonic() + 3, -1
    while time.monotonic() - last_progress < timeout:
        pool.restart_dead()
        if chaos and time.monotonic() > next_kill and ended > ended_at_kill:
            pool.kill_one(chaos)
            next_kill, ended_at_kill = time.monotonic() + chaos.uniform(2, 4), ended
        status, now_ended = run_progress(env)
        if status not in ("pending", "running"):
            return json.loads(manage(env, "bulk_translate", "status", "--json").stdout)
        if now_ended > ended:
            ended, last_progress = now_ended, time.monotonic()
        time.sleep(0.5)
    raise AssertionError(
        f"No unit ended for {timeout}s: the run is {status}, {ended} units ended\n"
        + stall_report(env)
    )


STALL_REPORT = """
from collections import Counter
from django.db.models.functions import Now
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max
from wagtail_bulk_translate.models import JanitorLease, Run, Unit

now = Run.objects.annotate(now=Now()).values_list("now", flat=True).first() or timezone.now()
def ago(value):
    return "-" if value is None else f"{(value - now).total_seconds():+.1f}s"
run = Run.objects.order_by("-pk").first()
print(f"database now {now.isoformat()} (times below relative to it)")
print(
    f"run {run.pk}: {run.status} enumeration_done={run.enumeration_done} "
    f"worker_chains={run.worker_chains} heartbeat={ago(run.heartbeat_at)} "
    f"wakeup={ago(run.wakeup_at)} coordinator_lease={ago(run.coordinator_lease_expires_at)}"
)
lease = JanitorLease.objects.filter(pk=1).first()
print(f"janitor lease: {lease and lease.token} expires {ago(lease and lease.expires_at)}")
print("units not ended (pk position locale status attempts claim_limit lease available error):")
for u in Unit.objects.filter(run=run, status__in=("pending", "running")).order_by("position"):
    print(
        f"  {u.pk} p{u.position} l{u.target_locale_id} {u.status} a={u.attempts} "
        f"limit={u.claim_limit} lease={str(u.lease_token)[:8]} {ago(u.lease_expires_at)} "
        f"after={ago(u.available_after)} {u.error_code} {u.error_message[:100]!r}"
    )
tasks = DBTaskResult.objects.exclude(status__in=("SUCCESSFUL", "FAILED")).order_by("enqueued_at")
print("tasks not finished, per status and task:", dict(Counter(
    f"{t.status} {t.task_path.rsplit('.', 1)[-1]}" for t in tasks
)))
print("the plugin's tasks not finished (status task args run_after started workers):")
for t in tasks.filter(task_path__startswith="wagtail_bulk_translate"):
    after = "now" if t.run_after == get_date_max() else ago(t.run_after)
    print(
        f"  {t.status} {t.task_path.rsplit('.', 1)[-1]} {t.args_kwargs['args']} "
        f"after={after} started={ago(t.started_at)} {t.worker_ids}"
    )
for t in DBTaskResult.objects.filter(status="FAILED").order_by("-finished_at")[:5]:
    print(f"  FAILED {t.task_path} {t.exception_class_path} {t.traceback[-600:]}")
"""


def stall_report(env) -> str:
    """Every unit not ended, the run row, the janitor lease and the task queue, for a stall."""
    try:
        result = manage(env, "shell", "--no-imports", "-c", STALL_REPORT, check=False, timeout=120)
    except subprocess.TimeoutExpired:
        return "(the stall report timed out)"
    return result.stdout + result.stderr[-3000:]


def run_progress(env) -> tuple[str, int]:
    """The latest run's status and how many of its units have ended, read straight from the
    database (a manage.py call takes seconds)."""
    sql = (
        "SELECT r.status, (SELECT COUNT(*) FROM wagtail_bulk_translate_unit u"
        " WHERE u.run_id = r.id AND u.status NOT IN ('pending', 'running'))"
        " FROM wagtail_bulk_translate_run r ORDER BY r.id DESC LIMIT 1"
    )
    if "DATABASE_URL" in env:
        import psycopg

        with psycopg.connect(env["DATABASE_URL"]) as conn:
            row = conn.execute(sql).fetchone()
    else:
        with sqlite3.connect(env["SQLITE_PATH"], timeout=30) as conn:
            row = conn.execute(sql).fetchone()
    return (row[0], row[1]) if row else ("pending", 0)


def assert_run_is_whole(env, summary: dict) -> None:
    assert summary["status"] == "succeeded", summary
    assert summary["units"]["succeeded"] == summary["units_total"] > 0, summary
    integrity = json.loads(manage(env, "shell", "--no-imports", "-c", INTEGRITY_REPORT).stdout)
    assert integrity == {"duplicate_pages": [], "running_units": 0, "tree_problems": [0] * 5}
    assert_site_translated(env, ("fr", "de", "es"))


def translate_seeded_site(
    env, *, pages: int, workers: int, timeout: float, chaos: random.Random | None = None
) -> tuple[dict, WorkerPool]:
    """A fresh demo site of ``pages`` pages translated by a pool of workers (see run_with_pool);
    returns the run's summary and the pool (its deaths and killed workers)."""
    manage(env, "seed_demo", "--pages", str(pages))
    pool = WorkerPool(env, size=workers)
    try:
        summary = run_with_pool(env, pool, timeout=timeout, chaos=chaos)
    finally:
        pool.stop()
    return summary, pool


def read_translator_log(path) -> list[tuple[int, str, str, str]]:
    """The LoggingTranslator's log: (worker pid, call id, locale code, text) per text sent."""
    with open(path, encoding="utf-8") as log:
        return [tuple(json.loads(line)) for line in log if line.strip()]


def sent_twice(log: list[tuple[int, str, str, str]], killed: set[int] = frozenset()) -> list:
    """(locale, text) pairs paid for more than once, not counting the last translator call of
    each killed worker: a kill between the provider's answer and the commit that stores it
    loses that one call, and the design promises nothing else is ever paid twice."""
    last_call = {pid: call for pid, call, _locale, _text in log}
    kept = Counter(
        (locale, text)
        for pid, call, locale, text in log
        if not (pid in killed and call == last_call[pid])
    )
    return sorted(pair for pair, n in kept.items() if n > 1)
