"""The command as a real process (``call_command`` hides what Django's own parser does).

``manage.py`` pre-parses Django's global ``--settings`` before the command sees its
arguments, so the settings models flag must be spelt differently; stdout of ``--json`` must
parse as it is, with nothing else mixed in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
# Real processes on a migrated database: run with the end-to-end tests, not `make test-quick`.
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def sandbox_env(tmp_path_factory):
    """A migrated SQLite sandbox database with the demo content (built once for this module)."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL")
    }
    env["SQLITE_PATH"] = str(tmp_path_factory.mktemp("cli") / "cli.sqlite3")
    manage(env, "migrate", "--verbosity", "0")
    manage(env, "seed_demo", "--pages", "10")
    return env


def manage(env, *args, check=True) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, str(ROOT / "sandbox" / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"{args} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
        )
    return result


def test_setting_models_reaches_the_command_and_json_is_the_whole_stdout(sandbox_env):
    result = manage(
        sandbox_env,
        *("bulk_translate", "start", "--setting-models", "demo.SiteBranding"),
        *("--locales", "fr", "--estimate", "--json"),
    )

    report = json.loads(result.stdout)
    assert report["objects_by_model"] == {"demo.SiteBranding": 1}
    assert report["units_total"] == 1


def test_a_started_run_and_its_reports_are_json_on_stdout(sandbox_env):
    started = manage(
        sandbox_env,
        *("bulk_translate", "start", "--setting-models", "demo.SiteBranding"),
        *("--locales", "fr", "--json"),
    )
    run_id = json.loads(started.stdout)["id"]

    status = json.loads(
        manage(sandbox_env, "bulk_translate", "status", str(run_id), "--json").stdout
    )
    runs = json.loads(manage(sandbox_env, "bulk_translate", "list", "--json").stdout)

    assert "Started run" in started.stderr
    assert status["id"] == run_id
    assert run_id in [row["id"] for row in runs]


def test_bad_input_exits_2_with_the_message_on_stderr(sandbox_env):
    result = manage(
        sandbox_env,
        *("bulk_translate", "start", "--all", "--locales", "fr", "--canary", "2147483648"),
        check=False,
    )

    assert result.returncode == 2
    assert "--canary must be between 1 and 2147483647" in result.stderr
    assert "Traceback" not in result.stderr
