"""Real ``db_worker`` processes, for the benchmarks whose wall time includes the task queue."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import IO, Any

from .harness import ROOT, process_environment

POLL_SECONDS = 0.05


@contextmanager
def worker_processes(database: str, count: int, translator: str | None = None) -> Iterator[None]:
    """``count`` workers, started and ready (Django loaded, polling) when the block begins."""
    env = {**process_environment(database, translator), "PYTHONUNBUFFERED": "1"}
    with ExitStack() as stack:
        logs = [stack.enter_context(tempfile.TemporaryFile(mode="w+")) for _ in range(count)]
        yield from run_workers(env, logs)


def run_workers(env: dict[str, str], logs: list[IO[str]]) -> Iterator[None]:
    command = [sys.executable, str(ROOT / "sandbox" / "manage.py"), "db_worker", "--queue-name",
               "*", "--interval", "0.1", "--no-startup-delay", "--no-reload"]  # fmt: skip
    workers = [
        subprocess.Popen(
            [*command, "--worker-id", f"bench-{index}-{time.time()}"],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        for index, log in enumerate(logs)
    ]
    try:
        wait_until_ready(workers, logs)
        yield
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()


def wait_until_ready(workers: list[subprocess.Popen], logs: list[IO[str]]) -> None:
    """Until every worker logged that it started (so start-up is not part of a timing)."""
    waiting = set(range(len(workers)))
    while waiting:
        for index in list(waiting):
            logs[index].seek(0)
            if "Starting worker" in logs[index].read():
                waiting.discard(index)
            elif workers[index].poll() is not None:
                logs[index].seek(0)
                raise RuntimeError(f"A worker exited at start-up:\n{logs[index].read()}")
        time.sleep(POLL_SECONDS)


def wait_for_run(run_id: int, stall_seconds: float = 600) -> Any:
    """Poll until the run is finished; gives up only when no unit ended for ``stall_seconds``."""
    from wagtail_bulk_translate.models import Run

    last_progress, last_ended = time.monotonic(), -1
    while True:
        run = Run.objects.get(pk=run_id)
        if run.is_finished:
            return run
        ended = run.units.exclude(status__in=["pending", "running"]).count()
        if ended != last_ended:
            last_progress, last_ended = time.monotonic(), ended
        elif time.monotonic() - last_progress > stall_seconds:
            raise RuntimeError(f"Run {run_id} stalled at {ended} ended units")
        time.sleep(POLL_SECONDS)


def wait_for_idle_queue(timeout: float = 600) -> None:
    """Until the workers have no task due: nothing ready to run, nothing running.

    Seeding, an earlier run and editing pages leave Wagtail's own tasks queued (search and
    reference index updates, several per page written). A run started behind them would be
    timed waiting for that backlog, not doing its own work; tasks deferred to later (the
    janitor's next sweep) are not a backlog and are not waited for.
    """
    from django_tasks_db.models import DBTaskResult

    deadline = time.monotonic() + timeout
    while DBTaskResult.objects.ready().exists() or DBTaskResult.objects.running().exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"The task queue was still busy after {timeout} s")
        time.sleep(POLL_SECONDS)


def timed_run(scope: Any, targets: list[str], mode: str = "changed") -> tuple[float, Any]:
    """Start a run for the workers already running, on an idle queue, and wait for it:
    (wall seconds, run)."""
    from .harness import check_succeeded, start_bulk_run

    wait_for_idle_queue()
    started = time.perf_counter()
    run = start_bulk_run(scope, targets, mode)
    wait_for_run(run.pk)
    seconds = time.perf_counter() - started
    return seconds, check_succeeded(run.pk)
