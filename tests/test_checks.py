"""System checks: each misconfiguration gives its id with a hint; the demo settings give none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.core import checks

from tests import factories as f
from tests.task_queue import DUMMY_BACKEND
from wagtail_bulk_translate.conf import checks as bt_checks

ROOT = Path(__file__).resolve().parent.parent


def manage_py_check(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``manage.py check`` of the sandbox as a real process (what a site developer runs)."""
    return subprocess.run(
        [sys.executable, "sandbox/manage.py", "check", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


DB_BACKEND = "django_tasks_db.DatabaseBackend"
RECORDING = "tests.translator_doubles.RecordingTranslator"


PLUGIN_CHECKS = (
    bt_checks.check_settings,
    bt_checks.check_localization,
    bt_checks.check_translator,
    bt_checks.check_task_backend,
    bt_checks.check_translator_options,
    bt_checks.check_pseudo_translator,
    bt_checks.check_content_languages,
    bt_checks.check_target_locales,
    bt_checks.check_excluded_fields,
    bt_checks.check_site_locales,
    bt_checks.check_lease_outlasts_a_call,
    bt_checks.check_review_length_ratios,
    bt_checks.check_cost_caps,
)


@pytest.fixture(autouse=True)
def debug(settings):
    """As in development (pytest turns DEBUG off): the pseudo translator is then fine (W006)."""
    settings.DEBUG = True


def messages(databases: list[str] | None = None) -> list[checks.CheckMessage]:
    """Every message of the plugin's checks under the current settings."""
    return [
        message
        for check in PLUGIN_CHECKS
        for message in check(app_configs=None, databases=databases)
    ]


def ids() -> list[str]:
    return [m.id for m in messages()]


def only(check_id: str) -> checks.CheckMessage:
    found = [m for m in messages() if m.id == check_id]
    assert len(found) == 1, ids()
    return found[0]


@pytest.mark.django_db
def test_the_test_settings_raise_no_check_message_at_all():
    f.locales()

    assert checks.run_checks() == []
    assert checks.run_checks(databases=["default"]) == []


@pytest.mark.django_db
def test_the_checks_run_through_django_and_report_under_bad_settings(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"SLUG_POLICY": "transliterate", "TYPO": 1}

    found = {m.id for m in checks.run_checks()}

    assert {"wagtail_bulk_translate.E005", "wagtail_bulk_translate.E010"} <= found


def test_the_demo_settings_pass_manage_py_check_without_warnings(tmp_path):
    """The sandbox as configured, on SQLite or on the DATABASE_URL database tests run on."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["SQLITE_PATH"] = str(tmp_path / "check.sqlite3")
    result = manage_py_check(env, "--fail-level", "WARNING")

    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_all_checks_are_registered():
    assert set(PLUGIN_CHECKS) <= set(checks.registry.registry.get_checks())


# --- E009, E010: every key's type and range, unknown keys ------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("LEASE_SECONDS", "300", "expected an integer of at least 1"),
        ("UNITS_PER_CLAIM", "10", "expected an integer of at least 1"),
        ("MAX_ATTEMPTS", 0, "expected an integer of at least 1"),
        ("EXCLUDE_FIELDS", ["demo.Testimonial"], "expected a dict"),
        ("TRANSLATOR", "deepl.Translator", "expected a dict with the keys 'CLASS'"),
    ],
)
def test_e009_a_wrong_value_names_the_key_the_value_and_what_is_expected(
    settings, key, value, expected
):
    settings.WAGTAIL_BULK_TRANSLATE = {key: value}

    message = only("wagtail_bulk_translate.E009")

    assert message.level == checks.ERROR
    assert f"[{key!r}]" in message.msg
    assert repr(value) in message.msg
    assert expected in message.msg
    assert key in message.hint


@pytest.mark.parametrize(
    ("settings_dict", "meant"),
    [
        ({"UNITS_PER_CLAIMS": 5}, "UNITS_PER_CLAIM"),
        ({"Queue": "bulk_translate"}, "QUEUE"),
        ({"TRANSLATOR": {"CLASS": RECORDING, "OPTION": {}}}, "OPTIONS"),
    ],
)
def test_e010_an_unknown_key_is_an_error_with_the_nearest_known_key(settings, settings_dict, meant):
    settings.WAGTAIL_BULK_TRANSLATE = settings_dict

    message = only("wagtail_bulk_translate.E010")

    assert message.level == checks.ERROR
    assert f"did you mean {meant}?" in message.msg


def test_no_e009_or_e010_for_known_keys_or_no_setting(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"QUEUE": "bulk_translate", "MAX_ATTEMPTS": 5}
    assert ids() == []

    del settings.WAGTAIL_BULK_TRANSLATE
    assert ids() == []


def test_manage_py_check_refuses_the_bad_settings_of_the_issue(tmp_path):
    """LEASE_SECONDS="300", UNITS_PER_CLAIM="10", MAX_ATTEMPTS=0, a typo, EXCLUDE_FIELDS as a
    list: `manage.py check` exits non-zero naming each."""
    settings_module = tmp_path / "bad_settings.py"
    settings_module.write_text(
        "from sandbox.settings import *\n"
        "WAGTAIL_BULK_TRANSLATE = {'LEASE_SECONDS': '300', 'UNITS_PER_CLAIM': '10', "
        "'MAX_ATTEMPTS': 0, 'UNITS_PER_CLAIMS': 10, 'EXCLUDE_FIELDS': ['demo.Testimonial']}\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["SQLITE_PATH"] = str(tmp_path / "check.sqlite3")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT), str(ROOT / "sandbox")])
    result = manage_py_check(env, "--settings", "bad_settings")

    assert result.returncode != 0
    for fragment in [
        "['LEASE_SECONDS'] is '300' (str): expected an integer of at least 1",
        "['UNITS_PER_CLAIM'] is '10' (str): expected an integer of at least 1",
        "['MAX_ATTEMPTS'] is 0 (int): expected an integer of at least 1",
        "unknown key 'UNITS_PER_CLAIMS': did you mean UNITS_PER_CLAIM?",
        "['EXCLUDE_FIELDS'] is ['demo.Testimonial'] (list): expected a dict",
    ]:
        assert fragment in result.stderr, result.stderr


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
def test_e009_malformed_translator_setting_is_one_error(settings, translator):
    """A malformed TRANSLATOR is reported once, not a crash of every manage.py command."""
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": translator}

    message = only("wagtail_bulk_translate.E009")

    assert message.level == checks.ERROR
    assert "['TRANSLATOR']" in message.msg
    assert "wagtail_bulk_translate.E003" not in ids()


@pytest.mark.parametrize(
    "translator",
    [{"OPTIONS": {"formality": "less"}}, "tests.translator_doubles.RecordingTranslator"],
    ids=["dict-without-CLASS", "string"],
)
def test_e003_malformed_fallback_translator_setting(settings, translator):
    settings.WAGTAIL_BULK_TRANSLATE = {}
    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = translator

    assert only("wagtail_bulk_translate.E003").level == checks.ERROR


def test_e003_a_module_that_fails_to_import_is_an_error_not_a_traceback(
    settings, tmp_path, monkeypatch
):
    (tmp_path / "broken_translator.py").write_text("raise RuntimeError('missing dependency')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": "broken_translator.Translator"}}

    message = only("wagtail_bulk_translate.E003")

    assert "missing dependency" in message.msg


@pytest.mark.parametrize(
    "class_path",
    ["collections.OrderedDict", "os.path.join", "wagtail_bulk_translate.translators.loading"],
)
@pytest.mark.parametrize(
    "setting", ["WAGTAIL_BULK_TRANSLATE", "WAGTAILLOCALIZE_MACHINE_TRANSLATOR"]
)
def test_e011_a_class_that_is_not_a_machine_translator(settings, class_path, setting):
    if setting == "WAGTAIL_BULK_TRANSLATE":
        settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": class_path}}
    else:
        settings.WAGTAIL_BULK_TRANSLATE = {}
        settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {"CLASS": class_path}

    message = only("wagtail_bulk_translate.E011")

    assert message.level == checks.ERROR
    assert f"{class_path!r} is not a machine translator" in message.msg
    assert "TRANSLATOR" in message.hint
    assert ids() == ["wagtail_bulk_translate.E011"]  # no crash of the other checks either


def test_no_e003_for_an_importable_translator(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {"CLASS": "tests.translator_doubles.RecordingTranslator", "OPTIONS": {}}
    }
    assert "wagtail_bulk_translate.E003" not in ids()
    assert "wagtail_bulk_translate.E011" not in ids()

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


def test_w003_deepl_without_a_key_is_a_warning_not_an_error(settings, monkeypatch):
    """An error stopped every management command and worker (Wagtail's tasks too); only
    starting a run needs the key (tests/runs/test_start_configuration.py)."""
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": {}}}

    message = only("wagtail_bulk_translate.W003")

    assert message.level == checks.WARNING
    assert not [m for m in messages() if m.level >= checks.ERROR]
    assert "no API key" in message.msg
    assert "DEEPL_AUTH_KEY" in message.hint
    # How to try the plugin with no key at all (the README's first configuration).
    assert "translators.pseudo.PseudoTranslator" in message.hint


@pytest.mark.parametrize("where", ["option", "environment"])
def test_no_w003_when_deepl_has_a_key(settings, monkeypatch, where):
    options = {"AUTH_KEY": "abc:fx"} if where == "option" else {}
    if where == "environment":
        monkeypatch.setenv("DEEPL_AUTH_KEY", "abc:fx")
    else:
        monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": options}}

    assert ids() == []


def test_a_management_command_starts_without_a_deepl_key(tmp_path):
    """`manage.py check` (any command: db_worker, bulk_translate status) is not stopped."""
    settings_module = tmp_path / "deepl_settings.py"
    settings_module.write_text(
        "from sandbox.settings import *\n"
        f"WAGTAIL_BULK_TRANSLATE = {{'TRANSLATOR': {{'CLASS': {DEEPL!r}}}}}\n"
    )
    env = {
        k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DEEPL_AUTH_KEY")
    }
    env["SQLITE_PATH"] = str(tmp_path / "check.sqlite3")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT), str(ROOT / "sandbox")])
    result = manage_py_check(env, "--settings", "deepl_settings")

    assert result.returncode == 0, result.stderr
    assert "wagtail_bulk_translate.W003" in result.stderr


# --- W004, W005: nothing to translate into -------------------------------------------------


@pytest.mark.parametrize("languages", [[("en", "English")], []])
def test_w004_only_one_content_language(settings, languages):
    settings.WAGTAIL_CONTENT_LANGUAGES = settings.LANGUAGES = languages or [("en", "English")]

    message = only("wagtail_bulk_translate.W004")

    assert message.level == checks.WARNING
    assert "WAGTAIL_CONTENT_LANGUAGES" in message.hint


@pytest.mark.django_db
def test_w005_only_the_source_locale():
    from wagtail.models import Locale

    assert list(Locale.objects.values_list("language_code", flat=True)) == ["en"]
    assert "wagtail_bulk_translate.W005" not in ids()  # only checked with a database

    found = [m for m in messages(databases=["default"]) if m.id.endswith("W005")]

    assert len(found) == 1
    assert found[0].level == checks.WARNING
    assert "only one locale" in found[0].msg
    assert "bulk_translate_locales" in found[0].hint


@pytest.mark.django_db
def test_no_w005_with_a_target_locale():
    f.locales()

    assert [m.id for m in messages(databases=["default"])] == []


# --- W006: the pseudo translator in production ---------------------------------------------


@pytest.mark.parametrize(
    "translator",
    [
        None,  # falls back to WAGTAILLOCALIZE_MACHINE_TRANSLATOR, the pseudo one in the demo
        {"CLASS": "wagtail_bulk_translate.translators.pseudo.PseudoTranslator"},
        {"CLASS": RECORDING},  # a subclass
    ],
)
def test_w006_pseudo_translator_outside_debug(settings, translator):
    settings.DEBUG = False
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": translator}

    message = only("wagtail_bulk_translate.W006")

    assert message.level == checks.WARNING
    assert "WAGTAIL_BULK_TRANSLATE['TRANSLATOR']" in message.hint


def test_w006_when_no_translator_is_configured_at_all(settings):
    settings.DEBUG = False
    settings.WAGTAIL_BULK_TRANSLATE = {}
    del settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR

    assert "wagtail_bulk_translate.W006" in ids()


def test_no_w006_under_debug_or_with_a_real_translator(settings, monkeypatch):
    assert "wagtail_bulk_translate.W006" not in ids()  # DEBUG (the fixture)

    settings.DEBUG = False
    monkeypatch.setenv("DEEPL_AUTH_KEY", "abc:fx")
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": DEEPL}}
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
        "TYPO": 1,
        "CONFIRM_ABOVE_COST": -1,
        "LEASE_SECONDS": "300",
    }
    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {"CLASS": "nowhere.Translator"}
    settings.WAGTAIL_CONTENT_LANGUAGES = settings.LANGUAGES = [("en", "English")]
    settings.TASKS = {"default": {"BACKEND": DUMMY_BACKEND, "QUEUES": ["default"]}}

    found = messages()

    assert sorted(m.id.rsplit(".", 1)[1] for m in found) == [
        "E001",
        "E002",
        "E003",
        "E005",
        "E006",
        "E008",
        "E009",
        "E010",
        "W002",
        "W004",
    ]
    assert [m.id for m in found if not m.hint] == []


def test_e009_malformed_translator_options_crash_no_other_check(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": RECORDING, "OPTIONS": "AUTH_KEY"}}
    settings.DEBUG = False

    assert ids() == ["wagtail_bulk_translate.E009"]


# --- E012, E013: EXCLUDE_FIELDS and SITE_LOCALES name what exists -------------------------


@pytest.mark.parametrize(
    ("excluded", "expected"),
    [
        (
            {"demo.Testimonials": ["author"]},
            "'demo.Testimonials', which is not an installed model.",
        ),
        (
            {"demo.testimonial": ["author"]},
            "which is not an installed model: did you mean 'demo.Testimonial'?",
        ),
        ({"Testimonial": ["author"]}, "'Testimonial', which is not an installed model."),
        ({"demo.Testimonial": ["authors"]}, "has no field 'authors': did you mean 'author'?"),
        ({"demo.Testimonial": ["zzz.heading"]}, "has no field 'zzz'."),
    ],
)
def test_e012_exclude_fields_names_a_model_or_field_that_does_not_exist(
    settings, excluded, expected
):
    settings.WAGTAIL_BULK_TRANSLATE = {"EXCLUDE_FIELDS": excluded}

    message = only("wagtail_bulk_translate.E012")

    assert message.level == checks.ERROR
    assert expected in message.msg


def test_no_e012_for_existing_models_fields_and_block_paths(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "EXCLUDE_FIELDS": {"demo.Testimonial": ["author"], "demo.ArticlePage": ["body.quote"]}
    }

    assert ids() == []


def test_e013_site_locales_maps_a_site_to_a_language_that_is_not_a_content_language(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"SITE_LOCALES": {"fr.localhost": "fr", "it.localhost": "it"}}

    message = only("wagtail_bulk_translate.E013")

    assert message.level == checks.ERROR
    assert "['SITE_LOCALES']['it.localhost'] is 'it'" in message.msg
    assert "WAGTAIL_CONTENT_LANGUAGES" in message.hint


# --- E014: a unit's lease outlasts one translator call ---------------------------------------

DEEPL = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"


def deepl_with(settings, lease: int, **options) -> None:
    settings.WAGTAIL_BULK_TRANSLATE = {
        "LEASE_SECONDS": lease,
        "TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": {"AUTH_KEY": "abc:fx", **options}},
    }


def test_e014_a_lease_shorter_than_one_deepl_call_is_refused(settings):
    # Two requests (the second retries texts whose markup broke), each 10 s, twice.
    deepl_with(settings, 30, TIMEOUT=10, RETRIES=1, RETRY_BACKOFF_SECONDS=0)

    message = only("wagtail_bulk_translate.E014")

    assert message.level == checks.ERROR
    assert "LEASE_SECONDS'] is 30" in message.msg
    assert "may take 40 s" in message.msg
    assert "at least 40" in message.hint


def test_e014_not_raised_when_the_lease_outlasts_the_call(settings):
    deepl_with(settings, 40, TIMEOUT=10, RETRIES=1, RETRY_BACKOFF_SECONDS=0)
    assert "wagtail_bulk_translate.E014" not in ids()


def test_e014_default_deepl_options_fit_the_default_lease(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": {}}}
    assert "wagtail_bulk_translate.E014" not in ids()


def test_e014_not_raised_for_a_translator_with_no_known_bound(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"LEASE_SECONDS": 1, "TRANSLATOR": {"CLASS": RECORDING}}
    assert "wagtail_bulk_translate.E014" not in ids()


def test_e014_stops_manage_py_check(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(
        SQLITE_PATH=str(tmp_path / "check.sqlite3"),
        DJANGO_SETTINGS_MODULE="tests.e2e.settings",
        WBT_SETTINGS=json.dumps(
            {"LEASE_SECONDS": 5, "TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": {"AUTH_KEY": "k"}}}
        ),
    )
    result = manage_py_check(env)

    assert result.returncode != 0
    assert "wagtail_bulk_translate.E014" in result.stderr


# --- E015: the review's length ratios leave a range ------------------------------------------


@pytest.mark.parametrize(("low", "high"), [(2.0, 1.5), (1.0, 1.0)])
def test_e015_a_min_length_ratio_not_below_the_max_is_refused(settings, low, high):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {"CLASS": RECORDING},
        "REVIEW_MIN_LENGTH_RATIO": low,
        "REVIEW_MAX_LENGTH_RATIO": high,
    }
    message = only("wagtail_bulk_translate.E015")
    assert message.level == checks.ERROR
    assert f"({low}) is not below REVIEW_MAX_LENGTH_RATIO ({high})" in message.msg


def test_e015_not_raised_for_the_defaults_or_a_range(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": RECORDING}}
    assert "wagtail_bulk_translate.E015" not in ids()
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {"CLASS": RECORDING},
        "REVIEW_MIN_LENGTH_RATIO": 0.8,
        "REVIEW_MAX_LENGTH_RATIO": 1.2,
    }
    assert "wagtail_bulk_translate.E015" not in ids()


# --- W009: a cost cap with a translator that reports no money ----------------------------------


def test_w009_a_cost_cap_with_a_translator_billing_characters(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {"CLASS": "wagtail_bulk_translate.translators.pseudo.PseudoTranslator"},
        "BUDGETS": {"origins": {"automatic": {"daily": {"cost": 5}}}},
    }
    found = [m for m in messages() if m.id == "wagtail_bulk_translate.W009"]
    assert len(found) == 1
    assert "PseudoTranslator bills characters" in found[0].msg


def test_no_w009_for_character_caps_or_a_translator_reporting_money(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"BUDGETS": {"daily": {"characters": 5}}}
    assert not [m for m in messages() if m.id == "wagtail_bulk_translate.W009"]
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {
            "CLASS": "wagtail_bulk_translate.translators.llm.LLMTranslator",
            "OPTIONS": {"MODEL": "gpt-4o-mini", "API_KEY": "x"},
        },
        "BUDGETS": {"daily": {"cost": 5}},
    }
    assert not [m for m in messages() if m.id == "wagtail_bulk_translate.W009"]
