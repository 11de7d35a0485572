"""The SQLite system check: concurrent workers need a write lock taken up front, a busy
timeout and WAL; without them runs fail with "database is locked"."""

from __future__ import annotations

import pytest

from wagtail_bulk_translate.conf.deployment_checks import check_sqlite, sqlite_warnings

README_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 30,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


def sqlite(options=None, name="/srv/site/db.sqlite3") -> dict:
    database = {"ENGINE": "django.db.backends.sqlite3", "NAME": name}
    if options is not None:
        database["OPTIONS"] = options
    return database


def warnings_for(settings, database: dict) -> list:
    return sqlite_warnings({"default": database})


def test_the_check_reads_the_databases_setting():
    # The test settings use an in-memory SQLite database: nothing to warn about.
    assert check_sqlite(app_configs=None) == []


def test_plain_sqlite_gets_one_warning_naming_every_missing_option(settings):
    found = warnings_for(settings, sqlite())

    assert [m.id for m in found] == ["wagtail_bulk_translate.W007"]
    text = found[0].msg + found[0].hint
    for option in ("transaction_mode", "IMMEDIATE", "timeout", "journal_mode=WAL"):
        assert option in text


@pytest.mark.parametrize(
    ("missing", "named"),
    [
        ("transaction_mode", "transaction_mode"),
        ("timeout", "timeout"),
        ("init_command", "journal_mode=WAL"),
    ],
)
def test_each_missing_option_is_named(settings, missing, named):
    options = {k: v for k, v in README_OPTIONS.items() if k != missing}
    found = warnings_for(settings, sqlite(options))
    assert len(found) == 1
    assert named in found[0].msg


def test_a_short_timeout_is_warned_about(settings):
    found = warnings_for(settings, sqlite({**README_OPTIONS, "timeout": 1}))
    assert len(found) == 1
    assert "timeout" in found[0].msg


def test_the_readme_options_give_no_warning(settings):
    assert warnings_for(settings, sqlite(dict(README_OPTIONS))) == []


def test_postgresql_and_in_memory_sqlite_give_no_warning(settings):
    postgres = {"ENGINE": "django.db.backends.postgresql", "NAME": "site"}
    assert warnings_for(settings, postgres) == []
    assert warnings_for(settings, sqlite(name=":memory:")) == []
