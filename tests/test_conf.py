"""The WAGTAIL_BULK_TRANSLATE settings dict: declarations, reference page, overrides, cache."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import override_settings

from wagtail_bulk_translate import conf
from wagtail_bulk_translate.conf import BulkTranslateSettings, get_settings, unknown_setting_keys
from wagtail_bulk_translate.models import SlugPolicy

SETTINGS_REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "settings.md"


def test_defaults_without_the_setting(settings):
    del settings.WAGTAIL_BULK_TRANSLATE

    current = get_settings()

    assert current == BulkTranslateSettings()
    assert current.TRANSLATOR is None
    assert current.TASK_BACKEND == "default"
    assert current.QUEUE == "bulk_translate"
    assert current.ENUMERATION_BATCH_SIZE == 500
    assert current.UNITS_PER_CLAIM == 25
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


def test_the_settings_reference_is_generated_from_the_declarations():
    """Regenerate with: python -c 'from wagtail_bulk_translate.conf import reference_table as t;
    print(t())' (under Django settings) and paste it into docs/reference/settings.md."""
    assert conf.reference_table() in SETTINGS_REFERENCE.read_text()


def test_every_key_declares_a_rule_and_a_meaning():
    for spec in conf.key_specs():
        assert spec.rule.describe()
        assert spec.doc.strip()


def test_the_default_of_every_key_passes_its_own_rule():
    for spec in conf.key_specs():
        assert spec.rule.problems("S", f"[{spec.name!r}]", spec.default) == [], spec.name


def test_the_slug_policies_are_the_models():
    assert set(conf.SLUG_POLICIES) == set(SlugPolicy.values)


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


def test_settings_are_read_once_and_cached():
    with override_settings(WAGTAIL_BULK_TRANSLATE={"QUEUE": "first"}):
        first = get_settings()

        assert get_settings() is first


def test_a_setting_changed_without_the_signal_is_seen(monkeypatch):
    """pytest-django deletes a setting, and restores it, without setting_changed: the cache
    must not serve the settings of before (the known flake of the test above)."""
    with override_settings(WAGTAIL_BULK_TRANSLATE={"QUEUE": "first"}):
        assert get_settings().QUEUE == "first"
        monkeypatch.setattr(django_settings, "WAGTAIL_BULK_TRANSLATE", {"QUEUE": "second"})
        assert get_settings().QUEUE == "second"
        monkeypatch.delattr(django_settings, "WAGTAIL_BULK_TRANSLATE")
        assert get_settings() == BulkTranslateSettings()
        monkeypatch.undo()
        assert get_settings().QUEUE == "first"


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
