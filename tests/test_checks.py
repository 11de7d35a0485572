"""System checks: each misconfiguration gives its id with a hint; the demo settings give none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.core import checks

from tests.task_queue import DUMMY_BACKEND
from wagtail_bulk_translate import checks as bt_checks

ROOT = Path(__file__).resolve().parent.parent
DB_BACKEND = "django_tasks_db.DatabaseBackend"


PLUGIN_CHECKS = (
    bt_checks.check_settings,
    bt_checks.check_localization,
    bt_checks.check_translator,
    bt_checks.check_task_backend,
    bt_checks.check_translator_options,
)


def messages() -> list[checks.CheckMessage]:
    """Every message of the plugin's checks under the current settings."""
    return [message for check in PLUGIN_CHECKS for message in check(app_configs=None)]


def ids() -> list[str]:
    return [m.id for m in messages()]


def only(check_id: str) -> checks.CheckMessage:
    found = [m for m in messages() if m.id == check_id]
    assert len(found) == 1, ids()
    return found[0]


@pytest.mark.django_db
def test_the_test_settings_raise_no_check_message_at_all():
    assert checks.run_checks() == []


@pytest.mark.django_db
def test_the_checks_run_through_django_and_report_under_bad_settings(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"SLUG_POLICY": "transliterate", "TYPO": 1}

    found = {m.id for m in checks.run_checks()}

    assert {"wagtail_bulk_translate.E005", "wagtail_bulk_translate.W001"} <= found


def test_the_demo_settings_pass_manage_py_check_without_warnings(tmp_path):
    """The sandbox as configured, on SQLite or on the DATABASE_URL database tests run on."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["SQLITE_PATH"] = str(tmp_path / "check.sqlite3")
    result = subprocess.run(
        [sys.executable, "sandbox/manage.py", "check", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_all_checks_are_registered():
    assert set(PLUGIN_CHECKS) <= set(checks.registry.registry.get_checks())


# --- W001 unknown keys -----------------------------------------------------------------------


def test_w001_unknown_setting_keys_are_named(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"UNITS_PER_CLAIMS": 5, "QUEUE": "bulk_translate", "Queue": 1}

    message = only("wagtail_bulk_translate.W001")

    assert message.level == checks.WARNING
    assert "Queue, UNITS_PER_CLAIMS" in message.msg
    assert "QUEUE," not in message.msg


def test_w001_not_raised_for_known_keys_or_no_setting(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"QUEUE": "bulk_translate", "MAX_ATTEMPTS": 5}
    assert "wagtail_bulk_translate.W001" not in ids()

    del settings.WAGTAIL_BULK_TRANSLATE
    assert "wagtail_bulk_translate.W001" not in ids()


# --- E001, E002: wagtail-localize and i18n ---------------------------------------------------


def test_e001_without_wagtail_localize(monkeypatch):
    is_installed = apps.is_installed
    monkeypatch.setattr(
        apps, "is_installed", lambda name: name != "wagtail_localize" and is_installed(name)
    )

    message = only("wagtail_bulk_translate.E001")

    assert message.level == checks.ERROR
    assert "wagtail_localize" in message.hint


def test_e002_with_i18n_disabled(settings):
    settings.WAGTAIL_I18N_ENABLED = False

    message = only("wagtail_bulk_translate.E002")

    assert message.level == checks.ERROR
    assert "WAGTAIL_I18N_ENABLED" in message.hint


def test_e002_when_i18n_is_not_set_at_all(settings):
    del settings.WAGTAIL_I18N_ENABLED

    assert "wagtail_bulk_translate.E002" in ids()


# --- E003: translator class ------------------------------------------------------------------


@pytest.mark.parametrize(
    "class_path",
    [
        "nowhere.Translator",
        "wagtail_bulk_translate.translators.pseudo.NoSuchTranslator",
        "NoDots",
    ],
)
def test_e003_translator_class_not_importable(settings, class_path):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": class_path, "OPTIONS": {}}}

    message = only("wagtail_bulk_translate.E003")

    assert message.level == checks.ERROR
    assert class_path in message.msg
    assert "TRANSLATOR" in message.hint


def test_e003_also_checks_the_wagtail_localize_translator_it_falls_back_to(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {}
    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {"CLASS": "nowhere.Translator"}

    assert "nowhere.Translator" in only("wagtail_bulk_translate.E003").msg


@pytest.mark.parametrize(
    "translator",
    [{"OPTIONS": {"formality": "less"}}, "tests.translator_doubles.RecordingTranslator"],
    ids=["dict-without-CLASS", "string"],
)
def test_e003_malformed_translator_setting(settings, translator):
    """A malformed TRANSLATOR is reported, not a crash of every manage.py command."""
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": translator}

    message = only("wagtail_bulk_translate.E003")

    assert message.level == checks.ERROR


def test_no_e003_for_an_importable_translator(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {"CLASS": "tests.translator_doubles.RecordingTranslator", "OPTIONS": {}}
    }
    assert "wagtail_bulk_translate.E003" not in ids()

    del settings.WAGTAIL_BULK_TRANSLATE
    del settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR  # falls back to the pseudo translator
    assert "wagtail_bulk_translate.E003" not in ids()


# --- E004, W002, E006: task backend and queue ------------------------------------------------


def test_e004_task_backend_alias_not_configured(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"TASK_BACKEND": "translations"}

    message = only("wagtail_bulk_translate.E004")

    assert message.level == checks.ERROR
    assert "'translations'" in message.msg
    assert "TASKS" in message.hint


def test_e004_task_backend_class_not_importable(settings):
    settings.TASKS = {"default": {"BACKEND": "nowhere.Backend", "QUEUES": []}}

    assert "wagtail_bulk_translate.E004" in ids()


def test_no_e004_for_another_configured_alias(settings):
    settings.TASKS = {
        "default": {"BACKEND": DB_BACKEND},
        "translations": {"BACKEND": DB_BACKEND, "QUEUES": ["bulk_translate"]},
    }
    settings.WAGTAIL_BULK_TRANSLATE = {"TASK_BACKEND": "translations"}

    assert ids() == []


def test_w002_dummy_backend_never_runs_anything(settings):
    settings.TASKS = {"default": {"BACKEND": DUMMY_BACKEND, "QUEUES": []}}

    message = only("wagtail_bulk_translate.W002")

    assert message.level == checks.WARNING
    assert "DatabaseBackend" in message.hint


def test_e006_queue_not_in_the_backend_queues(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"QUEUE": "translations"}

    message = only("wagtail_bulk_translate.E006")

    assert message.level == checks.ERROR
    assert "'translations'" in message.msg
    assert "QUEUES" in message.hint


def test_e006_when_queues_default_to_the_default_queue_only(settings):
    settings.TASKS = {"default": {"BACKEND": DB_BACKEND}}  # QUEUES defaults to ["default"]

    assert "wagtail_bulk_translate.E006" in ids()


def test_no_e006_when_the_backend_accepts_any_queue(settings):
    settings.TASKS = {"default": {"BACKEND": DB_BACKEND, "QUEUES": []}}
    settings.WAGTAIL_BULK_TRANSLATE = {"QUEUE": "translations"}

    assert ids() == []


# --- E005: slug policy -----------------------------------------------------------------------


def test_e005_unknown_slug_policy(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"SLUG_POLICY": "transliterate"}

    message = only("wagtail_bulk_translate.E005")

    assert message.level == checks.ERROR
    assert "derive" in message.msg


@pytest.mark.parametrize("policy", ["derive", "keep", "translate"])
def test_no_e005_for_valid_slug_policies(settings, policy):
    settings.WAGTAIL_BULK_TRANSLATE = {"SLUG_POLICY": policy}

    assert ids() == []


# --- E008: cost confirmation threshold ----------------------------------------------------


@pytest.mark.parametrize("value", [-1, "50", True])
def test_e008_bad_cost_threshold(settings, value):
    settings.WAGTAIL_BULK_TRANSLATE = {"CONFIRM_ABOVE_COST": value}

    assert "CONFIRM_ABOVE_COST" in only("wagtail_bulk_translate.E008").msg


@pytest.mark.parametrize("value", [None, 0, 12.5])
def test_no_e008_for_valid_cost_thresholds(settings, value):
    settings.WAGTAIL_BULK_TRANSLATE = {"CONFIRM_ABOVE_COST": value}

    assert ids() == []


DEEPL = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"


def test_e007_deepl_without_a_key(settings, monkeypatch):
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": {}}}

    message = only("wagtail_bulk_translate.E007")

    assert "no API key" in message.msg
    assert "DEEPL_AUTH_KEY" in message.hint


@pytest.mark.parametrize("where", ["option", "environment"])
def test_no_e007_when_deepl_has_a_key(settings, monkeypatch, where):
    options = {"AUTH_KEY": "abc:fx"} if where == "option" else {}
    if where == "environment":
        monkeypatch.setenv("DEEPL_AUTH_KEY", "abc:fx")
    else:
        monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": options}}

    assert ids() == []


# --- every message says what to do -----------------------------------------------------------


def test_every_message_has_a_hint(settings, monkeypatch):
    is_installed = apps.is_installed
    monkeypatch.setattr(
        apps, "is_installed", lambda name: name != "wagtail_localize" and is_installed(name)
    )
    settings.WAGTAIL_I18N_ENABLED = False
    settings.WAGTAIL_BULK_TRANSLATE = {
        "SLUG_POLICY": "transliterate",
        "QUEUE": "translations",
        "TRANSLATOR": {"CLASS": "nowhere.Translator"},
        "TYPO": 1,
        "CONFIRM_ABOVE_COST": -1,
    }
    settings.TASKS = {"default": {"BACKEND": DUMMY_BACKEND, "QUEUES": ["default"]}}

    found = messages()

    assert sorted(m.id.rsplit(".", 1)[1] for m in found) == [
        "E001",
        "E002",
        "E003",
        "E005",
        "E006",
        "E008",
        "W001",
        "W002",
    ]
    assert [m.id for m in found if not m.hint] == []
