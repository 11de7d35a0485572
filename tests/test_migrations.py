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
