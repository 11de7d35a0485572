"""Migrations install on every supported Wagtail, the oldest (7.4) included."""

from __future__ import annotations

import importlib
import pkgutil

from wagtail_bulk_translate import migrations

# The newest wagtailcore migration of the oldest supported Wagtail (7.4) this app may depend on.
OLDEST_WAGTAILCORE = "0094_alter_page_locale"


def migration_dependencies() -> dict[str, list[tuple[str, str]]]:
    found = {}
    for module in pkgutil.iter_modules(migrations.__path__):
        migration = importlib.import_module(f"{migrations.__name__}.{module.name}").Migration
        found[module.name] = list(migration.dependencies)
    return found


def test_no_migration_depends_on_a_wagtailcore_migration_newer_than_the_oldest_wagtail():
    dependencies = migration_dependencies()
    assert "0001_initial" in dependencies
    too_new = [
        (name, dependency)
        for name, deps in dependencies.items()
        for app, dependency in deps
        if app == "wagtailcore" and dependency[:4] > OLDEST_WAGTAILCORE[:4]
    ]
    assert too_new == []


# --- 0022: credentials scrubbed from existing runs ------------------------------------------


def test_existing_runs_lose_their_credentials(db):
    from django.apps import apps

    from tests import factories as f
    from wagtail_bulk_translate.models import Run

    scrub = importlib.import_module(f"{migrations.__name__}.0023_run_translator_credentials")
    run = Run.objects.create(
        source_locale=f.locales()["en"],
        translator_class="x.LLMTranslator",
        translator_options={
            "MODEL": "m",
            "DEFAULT_HEADERS": {"api-key": "AZURE-1111", "x-trace": "on"},
            "DEFAULT_QUERY": {"api-version": "2024-10-21", "key": "Q-1111"},
        },
        translator_change=(
            "settings changed since the run started, taken on resume at 2025-01-01 10:00:00 UTC: "
            "DEFAULT_HEADERS {'api-key': 'AZURE-1111'} → {'api-key': 'AZURE-2222'}; "
            "MODEL 'a' → 'm'"
        ),
    )

    scrub.scrub_runs(apps, None)

    run.refresh_from_db()
    assert run.translator_options == {
        "MODEL": "m",
        "DEFAULT_HEADERS": {"x-trace": "on"},
        "DEFAULT_QUERY": {"api-version": "2024-10-21"},
    }
    assert run.translator_change.endswith("UTC: MODEL 'a' → 'm'; credentials changed")
    assert "1111" not in run.translator_change and "2222" not in run.translator_change
