"""Where a first translation's queries and time go, step by step and table by table.

    python -m benchmarks.profile [--pages 60] [--sample 20] [--locales fr]

Seeds a demo site in a temporary SQLite database, translates ``sample`` pages in process (one
worker's loop, the instant pseudo translator) and prints, per unit: queries and milliseconds of
each worker step (prepare: load, extract, plan; translate; write), the tables each step reads
and writes most, and the lines of the plugin that issue the write step's queries.
The "Where the time goes" of docs/benchmarks.md comes from it.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .harness import Config, setup_django

STEPS = ("prepare_object", "translate_locale", "write_unit")


class StepProfile:
    """Queries (by step and table) and time (by step) of everything run under ``record``."""

    def __init__(self) -> None:
        self.step = "other"
        self.queries: Counter[tuple[str, str]] = Counter()
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.write_lines: Counter[str] = Counter()

    def timed(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def step(*args: Any, **kwargs: Any) -> Any:
            outer, self.step = self.step, name
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - started
                self.step = outer

        return step

    def record(self, execute: Any, sql: str, params: Any, many: Any, context: Any) -> Any:
        self.queries[(self.step, table_of(sql))] += 1
        if self.step == "write_unit":
            savepoint = " (savepoints)" if "SAVEPOINT" in sql else ""
            self.write_lines[plugin_line() + savepoint] += 1
        return execute(sql, params, many, context)


def table_of(sql: str) -> str:
    if "SAVEPOINT" in sql:  # named per savepoint: one line for all
        return sql.split('"')[0].strip()
    match = re.search(r'(?:FROM|INTO|UPDATE)\s+"?(\w+)"?', sql)
    return f"{sql.split()[0].upper()} {match.group(1) if match else sql[:30]}"


def plugin_line() -> str:
    """The innermost line of the plugin on the stack (what asked for the query)."""
    frames = [f for f in traceback.extract_stack() if "/wagtail_bulk_translate/" in f.filename]
    if not frames:
        return "?"
    frame = frames[-1]
    return f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"


def profile(pages: list[Any], locales: list[str]) -> tuple[StepProfile, int]:
    from django.db import connection

    from wagtail_bulk_translate.engine import worker

    from .harness import check_succeeded, pages_scope, process_in_process, start_bulk_run

    result = StepProfile()
    originals = {name: getattr(worker, name) for name in STEPS}
    for name, function in originals.items():
        setattr(worker, name, result.timed(name, function))
    run = start_bulk_run(pages_scope(pages), locales)
    try:
        with connection.execute_wrapper(result.record):
            process_in_process(run.pk)
    finally:
        for name, function in originals.items():
            setattr(worker, name, function)
    check_succeeded(run.pk)
    return result, len(pages) * len(locales)


def report(result: StepProfile, units: int, top: int = 16) -> str:
    per_step: Counter[str] = Counter()
    for (step, _table), count in result.queries.items():
        per_step[step] += count
    lines = [f"{units} units; per unit:"]
    for step in (*STEPS, "other"):
        ms = 1000 * result.seconds[step] / units
        lines.append(f"  {step:18} {per_step[step] / units:7.1f} queries {ms:8.1f} ms")
    lines.append(f"  {'total':18} {sum(per_step.values()) / units:7.1f} queries")
    lines.append("Tables, per unit:")
    for (step, table), count in result.queries.most_common(top * 2):
        lines.append(f"  {step:18} {count / units:7.1f}  {table}")
    lines.append("Write step, by the plugin's line that asked, per unit:")
    for line, count in result.write_lines.most_common(top):
        lines.append(f"  {count / units:7.1f}  {line}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__)
    parser.add_argument("--pages", type=int, default=60, help="pages of the seeded site")
    parser.add_argument("--sample", type=int, default=20, help="pages translated")
    parser.add_argument("--locales", default="fr", help="comma-separated target locales")
    args = parser.parse_args(argv)
    locales = args.locales.split(",")
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as workdir:
        setup_django(str(Path(workdir) / "profile.sqlite3"))
        from .harness import content_pages, translate_structure
        from .runner import seed

        seed(Config(pages=args.pages, locales=len(locales), sample=args.sample, workdir=workdir))
        translate_structure(locales)  # the sections of any locale named (seed has the first)
        result, units = profile(content_pages(args.sample), locales)
    print(report(result, units))
    return 0


if __name__ == "__main__":
    sys.exit(main())
