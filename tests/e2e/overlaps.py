"""Two runs started on the same scope at the same moment: what both backends' tests check."""

from __future__ import annotations

import json
import subprocess
import time

from tests.e2e.helpers import INTEGRITY_REPORT, MANAGE, ROOT, manage

UNITS = """
import json
from wagtail_bulk_translate.models import Run, Unit
print(json.dumps({
    "runs": {r.pk: r.status for r in Run.objects.all()},
    "units": [
        [u.run_id, str(u.object_key), u.target_locale.language_code, u.status, u.error_code,
         u.error_message]
        for u in Unit.objects.select_related("target_locale")
    ],
}))
"""


def units_report(env) -> dict:
    return json.loads(manage(env, "shell", "--no-imports", "-c", UNITS).stdout)


def start_two_runs_at_once(env) -> None:
    start = [*MANAGE, "bulk_translate", "start", "--all", "--locales", "fr,de", "--mode", "refresh"]
    starts = [subprocess.Popen(start, env=env, cwd=ROOT) for _ in range(2)]
    assert [s.wait(timeout=300) for s in starts] == [0, 0]


def wait_for_runs(env, timeout: float) -> dict:
    """Every run ended; the bound is generous (a loaded machine runs them slowly)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        report = units_report(env)
        if report["runs"] and not {"pending", "running"} & set(report["runs"].values()):
            return report
        time.sleep(1)
    raise AssertionError(f"The runs did not finish in {timeout}s: {report['runs']}")


def assert_each_pair_translated_once(env, report: dict) -> None:
    """Both runs succeeded, each (object, locale) written by exactly one, and they overlapped."""
    assert sorted(report["runs"].values()) == ["succeeded", "succeeded"], report["runs"]
    written = [
        (key, code) for _run, key, code, status, *_ in report["units"] if status == "succeeded"
    ]
    assert len(written) == len(set(written)), "a pair was translated by both runs"
    every_pair = {(key, code) for _run, key, code, *_ in report["units"]}
    assert set(written) == every_pair, "a pair was translated by neither run"
    skipped = [unit for unit in report["units"] if unit[3] == "skipped"]
    assert skipped, "the runs did not overlap"
    for _run, _key, _code, _status, error_code, message in skipped:
        assert error_code == "duplicate_in_flight"
        assert "run" in message.lower()
    integrity = json.loads(manage(env, "shell", "--no-imports", "-c", INTEGRITY_REPORT).stdout)
    assert integrity == {"duplicate_pages": [], "running_units": 0, "tree_problems": [0] * 5}
