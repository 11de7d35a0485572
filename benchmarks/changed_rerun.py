"""Benchmark 4: a changed-mode re-run after editing 1 % of the pages.

One real worker process runs a first translation of ``sample`` pages into every target locale,
then 1 % of the pages get a new title (published), then the same run again in "changed" mode.
Wall times run from starting the run to seeing it finished, so they include the task queue's
and the coordinator's waits; characters are those the translator billed.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from .harness import Config, Result, content_pages, pages_scope
from .workers import timed_run, worker_processes

CHARACTERS_TARGET = 0.02
TIME_TARGET = 0.10


def run(config: Config) -> list[Result]:
    pages = content_pages(config.sample)
    scope = pages_scope(pages)
    with worker_processes(connection.settings_dict["NAME"], 1):
        first_seconds, first = timed_run(scope, config.targets)
        edited = edit_pages(pages[::100])  # 1 %, spread over the site
        again_seconds, again = timed_run(scope, config.targets)
    changed_units = again.units.filter(status="succeeded").count()
    notes = f"{len(pages)} pages x {len(config.targets)} locales, {edited} edited; 1 worker"
    return [
        Result(
            "4 changed re-run",
            "characters (re-run vs first run)",
            again.billed_characters,
            first.billed_characters,
            f"ratio ≤ {CHARACTERS_TARGET}",
            again.billed_characters <= CHARACTERS_TARGET * first.billed_characters,
            notes,
        ),
        Result(
            "4 changed re-run",
            "wall seconds (re-run vs first run)",
            round(again_seconds, 2),
            round(first_seconds, 2),
            f"ratio ≤ {TIME_TARGET}",
            again_seconds <= TIME_TARGET * first_seconds,
            f"{notes}; {changed_units} units re-translated",
        ),
    ]


def edit_pages(pages: list[Any]) -> int:
    for page in pages:
        specific = page.specific
        specific.title = f"{specific.title} (edited)"
        specific.save_revision().publish()
    return len(pages)
