"""System checks of the deployment: a database and a cache the web and worker processes share."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache

from ..compat import DummyBackend, ImmediateBackend, InvalidTaskBackend, task_backends
from .settings import get_settings

# What a malformed translator setting raises when it is read (reported as E003/E009).

# Concurrent workers on SQLite: take the write lock when a transaction starts (a deferred
# transaction that upgrades to a writer fails at once with "database is locked", whatever the
# timeout), wait for a busy writer instead of failing, and let readers run beside the writer.
SQLITE_MIN_TIMEOUT = 20
SQLITE_README_OPTIONS = (
    '"OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 30, '
    '"init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}'
)


def sqlite_problems(database: dict[str, Any]) -> list[str]:
    options = database.get("OPTIONS") or {}
    problems = []
    if str(options.get("transaction_mode", "")).upper() != "IMMEDIATE":
        problems.append('"transaction_mode": "IMMEDIATE" is not set')
    timeout = options.get("timeout")
    if not isinstance(timeout, int | float) or timeout < SQLITE_MIN_TIMEOUT:
        problems.append(f'"timeout" is {timeout!r} (at least {SQLITE_MIN_TIMEOUT} s needed)')
    if "journal_mode=wal" not in str(options.get("init_command", "")).replace(" ", "").lower():
        problems.append('"init_command" does not set "PRAGMA journal_mode=WAL"')
    return problems


def is_file_sqlite(database: dict[str, Any]) -> bool:
    name = str(database.get("NAME") or "")
    return database.get("ENGINE") == "django.db.backends.sqlite3" and not (
        name == ":memory:" or name.startswith("file::memory:") or "mode=memory" in name
    )


@checks.register()
def check_sqlite(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Warn when SQLite lacks what concurrent workers need (runs fail "database is locked")."""
    return sqlite_warnings(settings.DATABASES)


def sqlite_warnings(databases: dict[str, dict[str, Any]]) -> list[checks.CheckMessage]:
    warnings: list[checks.CheckMessage] = []
    for alias, database in databases.items():
        if not is_file_sqlite(database):
            continue
        problems = sqlite_problems(database)
        if problems:
            warnings.append(
                checks.Warning(
                    f"SQLite database {alias!r} is not set up for concurrent workers: "
                    f'{"; ".join(problems)}. Units may fail with "database is locked".',
                    hint=f"Add to DATABASES[{alias!r}]: {SQLITE_README_OPTIONS} (see "
                    "docs/getting-started.md), or use PostgreSQL.",
                    id="wagtail_bulk_translate.W007",
                )
            )
    return warnings


@checks.register()
def check_shared_cache(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Warn when workers in other processes cannot clear what the web process cached.

    Wagtail keeps its site root paths in the default cache; a run that creates a locale's home
    page clears them in the worker. With a per-process cache the web server keeps the old
    paths and answers 500 on that locale's pages until it restarts.
    """
    try:
        backend = task_backends[get_settings().TASK_BACKEND]
    except (InvalidTaskBackend, KeyError):
        return []  # check_task_backend reports it
    if isinstance(backend, ImmediateBackend | DummyBackend):
        return []  # the work runs in the web process itself (or never)
    if not isinstance(caches["default"], LocMemCache):
        return []
    return [
        checks.Warning(
            "The default cache is per-process (LocMemCache) while runs are worked on in other "
            "processes: after a run creates a locale's home page, the web server keeps "
            "Wagtail's old site root paths and that locale's pages answer 500 until it "
            "restarts.",
            hint="Configure CACHES['default'] with a cache all processes share, e.g. "
            "django.core.cache.backends.db.DatabaseCache (then `manage.py createcachetable`), "
            "FileBasedCache on one machine, or Redis/Memcached (see "
            "docs/getting-started.md).",
            id="wagtail_bulk_translate.W008",
        )
    ]
