"""Fixtures of the end-to-end tests: a brand-new database per test, crash-test settings.

Every test collected here is marked ``e2e`` (deselected by ``make test-quick``, run by
``make test`` and CI), so a new end-to-end test cannot be forgotten in the quick loop.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture
def site_env(tmp_path):
    """Environment variables pointing the sandbox at a brand-new database."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    base_url = os.environ.get("DATABASE_URL")
    if not base_url:
        env["SQLITE_PATH"] = str(tmp_path / "e2e.sqlite3")
        yield env
        return
    import psycopg

    name = f"wbt_e2e_{uuid.uuid4().hex[:10]}"
    admin_url = base_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    env["DATABASE_URL"] = base_url.rsplit("/", 1)[0] + f"/{name}"
    yield env
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def crash_env(site_env, tmp_path):
    log = tmp_path / "translator.log"
    log.touch()
    overrides = {
        "TRANSLATOR": {
            "CLASS": "tests.translator_doubles.LoggingTranslator",
            "OPTIONS": {"LOG_PATH": str(log)},
        },
        "LEASE_SECONDS": 4,
        "STALL_SECONDS": 3,
        "JANITOR_INTERVAL_SECONDS": 1,
        "RETRY_BACKOFF_SECONDS": 0.2,
        "MAX_ATTEMPTS": 10,
        "UNITS_PER_CLAIM": 6,
        "WORKER_TIME_BUDGET_SECONDS": 20,
    }
    site_env.update(
        DJANGO_SETTINGS_MODULE="tests.e2e.settings",
        WBT_SETTINGS=json.dumps(overrides),
        WBT_CRASH_DIR=str(tmp_path),
    )
    site_env["translator_log"] = str(log)
    return site_env
