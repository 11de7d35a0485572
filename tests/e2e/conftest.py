"""Fixtures of the end-to-end tests: a brand-new database per test, crash-test settings.

Every test collected here is marked ``e2e`` (deselected by ``make test-quick``, run by
``make test`` and CI), so a new end-to-end test cannot be forgotten in the quick loop.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import uuid
from pathlib import Path

import pytest

from tests.e2e.helpers import manage

HERE = Path(__file__).resolve().parent
# The fault tests that prove something only on PostgreSQL use it whatever DATABASE_URL says.
LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory):
    """One database migrated per session: each test starts from a copy of it (a migrate takes
    15-20 s on a loaded machine; a copy, well under one). A SQLite file, or a PostgreSQL
    database that CREATE DATABASE ... TEMPLATE copies."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    base_url = os.environ.get("DATABASE_URL")
    if not base_url:
        path = tmp_path_factory.mktemp("e2e-template") / "template.sqlite3"
        manage({**env, "SQLITE_PATH": str(path)}, "migrate", "--verbosity", "0")
        with sqlite3.connect(path) as conn:  # everything in the main file, so a copy is whole
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        yield path
        return
    name = f"wbt_e2e_template_{uuid.uuid4().hex[:10]}"
    with admin_connection(base_url) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        manage({**env, "DATABASE_URL": database_url(base_url, name)}, "migrate", "--verbosity", "0")
        yield name
    finally:
        with admin_connection(base_url) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def site_env(tmp_path, migrated_database):
    """Environment variables pointing the sandbox at a brand-new, migrated database."""
    yield from new_database_env(tmp_path, migrated_database)


@pytest.fixture
def empty_site_env(tmp_path):
    """Environment variables pointing the sandbox at a brand-new, empty database."""
    yield from new_database_env(tmp_path, None)


def new_database_env(tmp_path, template):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    base_url = os.environ.get("DATABASE_URL")
    if not base_url:
        env["SQLITE_PATH"] = str(tmp_path / "e2e.sqlite3")
        if template is not None:
            shutil.copyfile(template, env["SQLITE_PATH"])
        yield env
        return
    name = f"wbt_e2e_{uuid.uuid4().hex[:10]}"
    copy = f' TEMPLATE "{template}"' if template is not None else ""
    with admin_connection(base_url) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{copy}')
    env["DATABASE_URL"] = database_url(base_url, name)
    yield env
    with admin_connection(base_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_url(base_url: str, name: str) -> str:
    return base_url.rsplit("/", 1)[0] + f"/{name}"


def admin_connection(base_url: str):
    import psycopg

    return psycopg.connect(database_url(base_url, "postgres"), autocommit=True)


@pytest.fixture
def postgres_env(request, tmp_path, monkeypatch):
    """Crash-test settings on a brand-new PostgreSQL database (a copy of the session's template
    when the suite runs on PostgreSQL, else migrated here)."""
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        yield with_crash_settings(request.getfixturevalue("site_env"), tmp_path)
        return
    monkeypatch.setenv("DATABASE_URL", LOCAL_POSTGRES)
    for env in new_database_env(tmp_path, None):
        manage(env, "migrate", "--verbosity", "0")
        yield with_crash_settings(env, tmp_path)


@pytest.fixture
def crash_env(site_env, tmp_path):
    return with_crash_settings(site_env, tmp_path)


def with_crash_settings(site_env: dict, tmp_path: Path) -> dict:
    """The sandbox on crash-test settings: short leases, a translator that logs what it sends."""
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
