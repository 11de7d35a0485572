"""``--wait``: follow a run until it ends, with progress lines, then print its summary.

Progress goes to stdout (stderr with ``--json``, so stdout stays one JSON document). On a
terminal one line is rewritten in place; otherwise a line is written every 10 % of the units,
when the run's status changes, or every ``PROGRESS_INTERVAL_SECONDS``.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.core.management.base import OutputWrapper

from ... import api
from ...models import Run, RunStatus, UnitStatus
from ...runs.liveness import seconds_without_worker, task_failure_note, worker_command
from ..reporting import format_summary

EXIT_CODES: dict[str, int] = {
    RunStatus.SUCCEEDED: 0,
    RunStatus.FAILED: 1,
    RunStatus.PARTIAL: 3,
    RunStatus.CANCELLED: 4,
    RunStatus.REVERTED: 0,
}
EXIT_TIMEOUT = 5
EXIT_INTERRUPTED = 130
POLL_SECONDS = 0.5
PROGRESS_INTERVAL_SECONDS = 30.0
PROGRESS_STEP_PERCENT = 10


class Progress:
    """Decides which progress lines are worth writing, and formats them."""

    def __init__(self, out: OutputWrapper, *, live: bool) -> None:
        self.out = out
        self.live = live  # a terminal: rewrite one line in place
        self.first_seen: tuple[float, int] | None = None
        self.last_written: tuple[float, int, str] | None = None

    def update(self, run: Run, counts: dict[str, int], sent: int) -> None:
        now = time.monotonic()
        done = sum(counts[status] for status in UnitStatus.terminal)
        holdup = holdup_note(run)
        if holdup:
            self.first_seen = None  # units/s and ETA start again once work goes on
        elif self.first_seen is None:
            self.first_seen = (now, done)
        state = f"{run.status}|{holdup.split(' for ')[0]}"
        if not self.worth_writing(now, done, run, state):
            return
        line = self.line(run, counts, done, sent, now, holdup)
        if self.live:
            self.out.write("\r" + line.ljust(100), ending="")
        else:
            self.out.write(line)
        self.last_written = (now, done, state)

    def worth_writing(self, now: float, done: int, run: Run, state: str) -> bool:
        if self.live or self.last_written is None or run.is_finished:
            return True
        when, written_done, written_state = self.last_written
        total = run.units_total or 1
        step = 100 * done // total // PROGRESS_STEP_PERCENT != (
            100 * written_done // total // PROGRESS_STEP_PERCENT
        )
        return step or state != written_state or now - when >= PROGRESS_INTERVAL_SECONDS

    def line(
        self, run: Run, counts: dict[str, int], done: int, sent: int, now: float, holdup: str
    ) -> str:
        total = run.units_total
        percent = f"{100 * done // total}%" if total else "0%"
        parts = [
            f"Run #{run.pk} {run.status}: {done}/{total} units ({percent})"
            + ("" if run.enumeration_done else ", still enumerating"),
            f"{counts[UnitStatus.SUCCEEDED]} ok, {counts[UnitStatus.SKIPPED]} skipped, "
            f"{counts[UnitStatus.FAILED]} failed",
            f"{sent} characters sent",
        ]
        rate = None if holdup else self.rate(done, now)
        if holdup:
            parts.append(holdup)
        elif rate:
            parts.append(f"{rate:.1f} units/s")
            if run.enumeration_done and total > done and not run.is_finished:
                parts.append(f"ETA {format_duration((total - done) / rate)}")
        return " · ".join(parts)

    def rate(self, done: int, now: float) -> float | None:
        if self.first_seen is None:
            return None
        since, done_then = self.first_seen
        if now - since < 1 or done <= done_then:
            return None
        return (done - done_then) / (now - since)

    def finish(self) -> None:
        if self.live and self.last_written is not None:
            self.out.write("")


def holdup_note(run: Run) -> str:
    """Why the run is not moving, said on every progress line until it moves again: paused
    (and why), or no worker has picked it up (and the command that starts one)."""
    if run.status == RunStatus.PAUSED:
        return f"paused ({run.error_message or 'by an editor'})"
    if failing := task_failure_note(run):
        return failing
    waited = seconds_without_worker(run)
    if waited is None:
        return ""
    return f"no worker for {waited} s — start one: {worker_command()}"


def no_worker_message(run: Run, waited: int) -> str:
    return f"No worker has picked up run #{run.pk} for {waited} s — start one: {worker_command()}"


def format_duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def wait_for(command: Any, run: Run, timeout: float | None, *, as_json: bool) -> None:
    """Follow ``run`` until it ends, print its summary, and exit with the run's exit code.

    The summary is printed however the waiting ends (the run ended, ``--timeout``, Ctrl-C), so
    with ``--json`` stdout is always one JSON document.
    """
    out = command.stderr if as_json else command.stdout
    if timeout is None:
        out.write(
            f"Waiting until run #{run.pk} ends (no --timeout). Ctrl-C stops waiting and leaves "
            f"the run going; to stop the run: manage.py bulk_translate cancel {run.pk}"
        )
    progress = Progress(out, live=out.isatty())
    try:
        code = follow(run, progress, timeout)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    progress.finish()
    if code == EXIT_TIMEOUT:
        command.stderr.write(
            f"Run #{run.pk} is still {run.status}; stopped waiting (--timeout). "
            f"It goes on: follow it with manage.py bulk_translate status {run.pk} --wait"
        )
    elif code == EXIT_INTERRUPTED:
        command.stderr.write(
            f"Stopped waiting; run #{run.pk} goes on. Follow it with: manage.py bulk_translate "
            f"status {run.pk} --wait — stop it with: manage.py bulk_translate cancel {run.pk}"
        )
    if as_json or code not in (EXIT_TIMEOUT, EXIT_INTERRUPTED):  # people saw the progress
        print_run(command, run, as_json=as_json)
    if code:
        sys.exit(code)


def follow(run: Run, progress: Progress, timeout: float | None) -> int:
    """Poll the run until it ends or the timeout expires; the exit code to end with."""
    deadline = time.monotonic() + timeout if timeout is not None else None
    while True:
        run.refresh_from_db()
        api.keep_janitor_alive()  # someone is watching: re-arm the janitor if its chain died
        progress.update(run, run.unit_counts(), api.characters_sent(run))
        if run.is_finished:
            return EXIT_CODES.get(run.status, 1)
        if deadline is not None and time.monotonic() >= deadline:
            return EXIT_TIMEOUT
        time.sleep(POLL_SECONDS)


def print_run(command: Any, run: Run, *, as_json: bool) -> None:
    """The run's summary: JSON on stdout with ``--json``, else for people."""
    summary = {**api.run_summary(run), **api.run_details(run)}
    command.stdout.write(json.dumps(summary, indent=2) if as_json else format_summary(summary))
