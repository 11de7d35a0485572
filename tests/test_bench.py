"""`make bench` at a tiny size: the runner runs every benchmark and writes latest.json.

Only the JSON's shape is checked, never a timing or whether a target was met: those are
figures for the docs, measured at the default size on an idle machine. The scaling benchmark
(PostgreSQL, three worker pools) is left out: it needs a server and minutes. The changed-mode
benchmark starts a real worker process, hence the e2e mark.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.runner import BENCHMARKS

ROOT = Path(__file__).resolve().parent.parent
FIELDS = {"name", "metric", "ours", "baseline", "ratio", "target", "met", "notes"}
TINY = ["--pages", "12", "--locales", "1", "--sample", "4", "--status-units", "1500"]


@pytest.mark.e2e
def test_bench_writes_one_object_per_figure_of_every_benchmark(tmp_path: Path) -> None:
    output = tmp_path / "latest.json"
    names = [name for name in BENCHMARKS if name != "scaling"]
    only = [arg for name in names for arg in ("--only", name)]
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks", *TINY, *only, "--output", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert completed.returncode == 0, completed.stderr
    document = json.loads(output.read_text(encoding="utf-8"))

    assert document["arguments"] == {"pages": 12, "locales": 1, "sample": 4, "status_units": 1500}
    results = document["results"]
    for result in results:
        assert set(result) == FIELDS
        assert result["metric"] != "not measured", result["notes"]
        assert isinstance(result["ours"], int | float)
        assert result["baseline"] is None or isinstance(result["baseline"], int | float)
        assert result["met"] in (True, False, None)
        assert result["ratio"] is None or result["ratio"] == pytest.approx(
            result["ours"] / result["baseline"]
        )
    numbers = {result["name"].split()[0] for result in results}
    assert numbers == {"1", "2", "3", "4", "6", "7", "8", "9", "10", "11", "12"}
    assert "| benchmark | metric | ours | baseline | ratio |" in completed.stdout


@pytest.mark.e2e
def test_profile_splits_a_first_translation_by_step_and_table() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.profile", "--pages", "12", "--sample", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert out.startswith("3 units; per unit:")
    steps = dict(
        (line.split()[0], float(line.split()[1]))
        for line in out.splitlines()
        if line.strip().startswith(("prepare_object", "translate_locale", "write_unit"))
    )
    assert set(steps) == {"prepare_object", "translate_locale", "write_unit"}
    assert all(queries > 0 for queries in steps.values())
    assert "write_unit            " in out and "SELECT wagtailcore_page" in out  # tables
    assert "target_writer.py:" in out  # and the plugin's lines that asked for its queries
