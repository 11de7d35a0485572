"""System checks: misconfiguration is reported at start-up with a hint, not mid-run."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string

from .compat import DummyBackend, InvalidTaskBackend, task_backends
from .conf import get_settings, unknown_setting_keys
from .models import SlugPolicy
from .translators.loading import configuration_problems, configured_translator


@checks.register()
def check_settings(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    unknown = unknown_setting_keys()
    if unknown:
        errors.append(
            checks.Warning(
                f"Unknown WAGTAIL_BULK_TRANSLATE keys: {', '.join(sorted(unknown))}.",
                hint="See the configuration reference in the README for the valid keys.",
                id="wagtail_bulk_translate.W001",
            )
        )
    if get_settings().SLUG_POLICY not in SlugPolicy.values:
        errors.append(
            checks.Error(
                f"SLUG_POLICY must be one of {', '.join(SlugPolicy.values)}.",
                hint="Set WAGTAIL_BULK_TRANSLATE['SLUG_POLICY'] to 'derive', 'keep' or "
                "'translate'.",
                id="wagtail_bulk_translate.E005",
            )
        )
    if not valid_cost_threshold(get_settings().CONFIRM_ABOVE_COST):
        errors.append(
            checks.Error(
                "CONFIRM_ABOVE_COST must be a number of at least 0, or None.",
                hint="Set WAGTAIL_BULK_TRANSLATE['CONFIRM_ABOVE_COST'] to e.g. 50 (in CURRENCY), "
                "0 to always ask, or None to never ask.",
                id="wagtail_bulk_translate.E008",
            )
        )
    return errors


def valid_cost_threshold(value: object) -> bool:
    if value is None:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


@checks.register()
def check_localization(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    if not apps.is_installed("wagtail_localize"):
        errors.append(
            checks.Error(
                "wagtail-localize is not installed.",
                hint="Add 'wagtail_localize' and 'wagtail_localize.locales' to INSTALLED_APPS.",
                id="wagtail_bulk_translate.E001",
            )
        )
    if not getattr(settings, "WAGTAIL_I18N_ENABLED", False):
        errors.append(
            checks.Error(
                "Wagtail internationalisation is disabled.",
                hint="Set WAGTAIL_I18N_ENABLED = True and WAGTAIL_CONTENT_LANGUAGES.",
                id="wagtail_bulk_translate.E002",
            )
        )
    return errors


@checks.register()
def check_translator(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    hint = (
        "Fix WAGTAIL_BULK_TRANSLATE['TRANSLATOR']['CLASS'] (or WAGTAILLOCALIZE_MACHINE_TRANSLATOR)."
    )
    try:
        class_path = configured_translator()["CLASS"]
    except (KeyError, TypeError, AttributeError):
        return [
            checks.Error(
                "The machine translator setting must be a dict with a 'CLASS' import path "
                "and optional 'OPTIONS'.",
                hint=hint,
                id="wagtail_bulk_translate.E003",
            )
        ]
    try:
        import_string(class_path)
    except ImportError as err:
        return [
            checks.Error(
                f"The machine translator class {class_path!r} cannot be imported: {err}.",
                hint=hint,
                id="wagtail_bulk_translate.E003",
            )
        ]
    return []


@checks.register()
def check_task_backend(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    conf = get_settings()
    try:
        backend = task_backends[conf.TASK_BACKEND]
    except (InvalidTaskBackend, KeyError) as err:
        return [
            checks.Error(
                f"The task backend {conf.TASK_BACKEND!r} is not configured: {err}.",
                hint="Configure it in TASKS, e.g. django_tasks_db.DatabaseBackend.",
                id="wagtail_bulk_translate.E004",
            )
        ]
    errors: list[checks.CheckMessage] = []
    if isinstance(backend, DummyBackend):
        errors.append(
            checks.Warning(
                f"The task backend {conf.TASK_BACKEND!r} is a DummyBackend: runs never execute.",
                hint="Use django_tasks_db.DatabaseBackend (or another real backend) with workers.",
                id="wagtail_bulk_translate.W002",
            )
        )
    if backend.queues and conf.QUEUE not in backend.queues:
        errors.append(
            checks.Error(
                f"The queue {conf.QUEUE!r} is not in the task backend's QUEUES.",
                hint=f"Add {conf.QUEUE!r} to TASKS[{conf.TASK_BACKEND!r}]['QUEUES'].",
                id="wagtail_bulk_translate.E006",
            )
        )
    return errors


@checks.register()
def check_translator_options(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Ask the translator what is wrong with its options (e.g. DeepL without a key)."""
    try:
        config = configured_translator()
        problems = configuration_problems(config["CLASS"], config["OPTIONS"])
    except (KeyError, TypeError, AttributeError, ImportError):
        return []  # reported by check_translator
    return [
        checks.Error(problem.message, hint=problem.hint, id="wagtail_bulk_translate.E007")
        for problem in problems
    ]


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
    warnings: list[checks.CheckMessage] = []
    for alias, database in settings.DATABASES.items():
        if not is_file_sqlite(database):
            continue
        problems = sqlite_problems(database)
        if problems:
            warnings.append(
                checks.Warning(
                    f"SQLite database {alias!r} is not set up for concurrent workers: "
                    f'{"; ".join(problems)}. Units may fail with "database is locked".',
                    hint=f"Add to DATABASES[{alias!r}]: {SQLITE_README_OPTIONS} (see the "
                    "README's install section), or use PostgreSQL.",
                    id="wagtail_bulk_translate.W007",
                )
            )
    return warnings
