"""The WAGTAIL_BULK_TRANSLATE settings dict: documented defaults, overrides, unknown keys, cache."""

from __future__ import annotations

import ast
import dataclasses
import textwrap

import pytest
from django.conf import settings as django_settings
from django.test import override_settings

from wagtail_bulk_translate import conf
from wagtail_bulk_translate.conf import BulkTranslateSettings, get_settings, unknown_setting_keys


def documented_defaults() -> dict:
    """The defaults dict written in conf.py's docstring."""
    doc = conf.__doc__
    start = doc.index("WAGTAIL_BULK_TRANSLATE = {") + len("WAGTAIL_BULK_TRANSLATE = ")
    end = doc.index("\n    }", start) + len("\n    }")
    return ast.literal_eval(textwrap.dedent("    " + doc[start:end]))


def test_defaults_without_the_setting(settings):
    del settings.WAGTAIL_BULK_TRANSLATE

    current = get_settings()

    assert current == BulkTranslateSettings()
    assert current.TRANSLATOR is None
    assert current.TASK_BACKEND == "default"
    assert current.QUEUE == "bulk_translate"
    assert current.ENUMERATION_BATCH_SIZE == 500
    assert current.UNITS_PER_CLAIM == 10
    assert current.LEASE_SECONDS == 300
    assert current.MAX_ATTEMPTS == 3
    assert current.SLUG_POLICY == "derive"
    assert current.SITE_LOCALES == {}
    assert current.EXCLUDE_FIELDS == {}


@pytest.mark.parametrize("value", [None, {}])
def test_an_empty_setting_means_defaults(settings, value):
    settings.WAGTAIL_BULK_TRANSLATE = value

    assert get_settings() == BulkTranslateSettings()
    assert unknown_setting_keys() == set()


def test_the_documented_defaults_are_the_real_ones():
    documented = documented_defaults()
    real = {
        f.name: getattr(BulkTranslateSettings(), f.name)
        for f in dataclasses.fields(BulkTranslateSettings)
    }

    assert documented == real


def test_overrides_replace_only_their_keys(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "QUEUE": "translations",
        "MAX_ATTEMPTS": 7,
        "SITE_LOCALES": {"fr.example.com": "fr"},
        "JANITOR_INTERVAL_SECONDS": None,
    }

    current = get_settings()

    assert current.QUEUE == "translations"
    assert current.MAX_ATTEMPTS == 7
    assert current.SITE_LOCALES == {"fr.example.com": "fr"}
    assert current.JANITOR_INTERVAL_SECONDS is None
    assert current.TASK_BACKEND == "default"
    assert current.LEASE_SECONDS == 300


def test_unknown_keys_are_ignored_and_listed(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"QUEUE": "translations", "QUEUES": ["x"], "max_attempts": 9}

    assert get_settings().QUEUE == "translations"
    assert get_settings().MAX_ATTEMPTS == 3
    assert not hasattr(get_settings(), "QUEUES")
    assert unknown_setting_keys() == {"QUEUES", "max_attempts"}


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_settings().QUEUE = "other"


def test_mutable_defaults_are_not_shared():
    first, second = BulkTranslateSettings(), BulkTranslateSettings()

    assert first.SITE_LOCALES is not second.SITE_LOCALES
    assert first.EXCLUDE_FIELDS is not second.EXCLUDE_FIELDS


def test_settings_are_read_once_and_cached(monkeypatch):
    with override_settings(WAGTAIL_BULK_TRANSLATE={"QUEUE": "first"}):
        first = get_settings()
        # Assigned without the setting_changed signal: the cached value is still served.
        monkeypatch.setattr(django_settings, "WAGTAIL_BULK_TRANSLATE", {"QUEUE": "second"})

        assert get_settings() is first
        assert get_settings().QUEUE == "first"
        monkeypatch.undo()


def test_the_cache_is_reset_when_the_setting_changes():
    before = get_settings()

    with override_settings(WAGTAIL_BULK_TRANSLATE={"QUEUE": "inside"}):
        assert get_settings().QUEUE == "inside"
        with override_settings(WAGTAIL_BULK_TRANSLATE={"QUEUE": "nested"}):
            assert get_settings().QUEUE == "nested"
        assert get_settings().QUEUE == "inside"

    assert get_settings() == before


def test_the_cache_is_reset_when_the_fallback_translator_changes(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {}
    cached = get_settings()

    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {
        "CLASS": "tests.translator_doubles.RecordingTranslator"
    }

    assert get_settings() is not cached


def test_other_setting_changes_keep_the_cache(settings):
    cached = get_settings()

    settings.WAGTAIL_SITE_NAME = "Another name"

    assert get_settings() is cached
