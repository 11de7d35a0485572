"""What the fault tests share: outages that follow progress, the checks that nothing was lost,
duplicated or paid twice, and a record of each trial for ``make faults``.

With ``WBT_FAULT_RECORD`` set to a file, each fault test appends one JSON line per trial (the
fault, units, failed units, duplicates, texts re-sent, seconds) before it asserts anything, so a
failed trial is counted too; ``scripts/fault_campaign.py`` runs the tests N times and turns the
lines into the table of docs/how-to/workers-in-production.md.
"""

from __future__ import annotations

import json
import os
import time

from tests.e2e.helpers import (
    INTEGRITY_REPORT,
    WorkerPool,
    manage,
    read_translator_log,
    run_progress,
    sent_twice,
    stall_report,
)


def run_with_outages(
    env, pool: WorkerPool, outage, after_ended: tuple[int, ...], stall_timeout: float = 120
) -> tuple[dict, int]:
    """Start a run of the whole site; call ``outage()`` once ``after_ended[i]`` units have
    ended; supervise the pool until the run ends. Returns the summary and the outages made.

    Outages follow progress, not the clock, and only a stall (no unit ended for
    ``stall_timeout`` seconds after the last outage or progress) fails the run.
    """
    manage(env, "bulk_translate", "start", "--all", "--locales", "fr,de,es", "--publish", "mirror")
    outages, ended, last_progress = 0, 0, time.monotonic()
    while time.monotonic() - last_progress < stall_timeout:
        pool.restart_dead()
        status, now_ended = run_progress(env)
        if status not in ("pending", "running"):
            return json.loads(manage(env, "bulk_translate", "status", "--json").stdout), outages
        if outages < len(after_ended) and now_ended >= after_ended[outages]:
            outage()
            outages += 1
            last_progress = time.monotonic()
        if now_ended > ended:
            ended, last_progress = now_ended, time.monotonic()
        time.sleep(0.5)
    raise AssertionError(f"No unit ended for {stall_timeout}s\n" + stall_report(env))


DUPLICATES_REPORT = """
import json
from django.db.models import Count
from wagtail_localize.models import StringTranslation
from wagtail_bulk_translate.models import Unit
units = Unit.objects.values("run_id", "object_key", "target_locale_id").annotate(n=Count("pk"))
strings = StringTranslation.objects.values("translation_of_id", "locale_id", "context_id")
print(json.dumps({
    "duplicate_units": units.filter(n__gt=1).count(),
    "duplicate_string_translations": strings.annotate(n=Count("pk")).filter(n__gt=1).count(),
    "string_translations": strings.count(),
}))
"""


def assert_nothing_duplicated(env) -> None:
    """No unit or StringTranslation twice (and some StringTranslations made)."""
    duplicates = json.loads(manage(env, "shell", "--no-imports", "-c", DUPLICATES_REPORT).stdout)
    assert duplicates["duplicate_units"] == 0, duplicates
    assert duplicates["duplicate_string_translations"] == 0, duplicates
    assert duplicates["string_translations"] > 0, duplicates


def assert_nothing_duplicated_or_paid_twice(env) -> None:
    """No unit or StringTranslation twice, and no text sent to the translator twice."""
    assert_nothing_duplicated(env)
    assert sent_twice(read_translator_log(env["translator_log"])) == [], "paid twice"


def resent_count(log: list) -> int:
    """How many texts were sent again (sends beyond the first of each (locale, text))."""
    return len(log) - len({(locale, text) for _pid, _call, locale, text in log})


def record_trial(env, fault: str, summary: dict, started: float) -> None:
    """Append this trial's figures to ``WBT_FAULT_RECORD``, if set (see the module's doc)."""
    path = os.environ.get("WBT_FAULT_RECORD")
    if not path:
        return
    duplicates = json.loads(manage(env, "shell", "--no-imports", "-c", DUPLICATES_REPORT).stdout)
    integrity = json.loads(manage(env, "shell", "--no-imports", "-c", INTEGRITY_REPORT).stdout)
    trial = {
        "fault": fault,
        "status": summary["status"],
        "units": summary["units_total"],
        "failed_units": summary["units"]["failed"],
        "duplicates": duplicates["duplicate_units"]
        + duplicates["duplicate_string_translations"]
        + len(integrity["duplicate_pages"]),
        "texts_resent": resent_count(read_translator_log(env["translator_log"])),
        "seconds": round(time.monotonic() - started, 1),
    }
    with open(path, "a") as file:
        file.write(json.dumps(trial) + "\n")
