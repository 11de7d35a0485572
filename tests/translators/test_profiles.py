"""Profiles and routing: which translator profiles a site has, and the order they are tried
for a locale."""

from __future__ import annotations

import pytest

from wagtail_bulk_translate.conf import checks as bt_checks
from wagtail_bulk_translate.translators.profiles import (
    Profile,
    candidates,
    configured_profiles,
    primary_profile_name,
    profile_problems,
)

PSEUDO = "wagtail_bulk_translate.translators.pseudo.PseudoTranslator"
RECORDING = "tests.translator_doubles.RecordingTranslator"


@pytest.fixture
def three(settings):
    def _configure(**keys):
        settings.WAGTAIL_BULK_TRANSLATE = {
            "TRANSLATORS": {
                "deepl": {"CLASS": PSEUDO, "NAME": "DeepL"},
                "gpt": {"CLASS": RECORDING},
                "claude": {"CLASS": RECORDING, "LOCALES": ["sw", "pt-BR"]},
            },
            **keys,
        }

    _configure()
    return _configure


def test_the_single_translator_setting_is_the_profile_default(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": RECORDING, "OPTIONS": {"A": 1}}}

    assert configured_profiles() == {"default": Profile("default", RECORDING, {"A": 1})}
    assert candidates("fr") == ["default"]


def test_with_no_setting_the_default_profile_is_wagtail_localizes_or_the_pseudo_translator(
    settings,
):
    settings.WAGTAIL_BULK_TRANSLATE = {}
    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {"CLASS": RECORDING}
    assert configured_profiles()["default"].class_path == RECORDING

    del settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR
    assert configured_profiles()["default"].class_path == PSEUDO


def test_named_profiles_leave_wagtail_localizes_setting_to_wagtail_localize(settings, three):
    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {"CLASS": RECORDING}

    assert list(configured_profiles()) == ["deepl", "gpt", "claude"]


def test_routing_by_code_then_language_then_star_then_every_other_profile(three):
    three(LOCALE_TRANSLATORS={"pt-br": ["claude", "gpt"], "pt": "gpt", "*": "deepl"})

    assert candidates("pt-BR") == ["claude", "gpt", "deepl"]
    assert candidates("pt-PT") == ["gpt", "deepl", "claude"]
    assert candidates("fr") == ["deepl", "gpt", "claude"]
    assert primary_profile_name() == "deepl"


def test_without_fallback_only_the_routed_profiles_are_tried(three):
    three(LOCALE_TRANSLATORS={"sw": "claude", "*": "gpt"}, TRANSLATOR_FALLBACK=False)

    assert candidates("sw") == ["claude", "gpt"]
    assert candidates("fr") == ["gpt"]


def test_a_run_choice_comes_before_the_routing(three):
    three(LOCALE_TRANSLATORS={"*": "deepl"}, TRANSLATOR_FALLBACK=False)

    assert candidates("fr", preferred=["gpt"]) == ["gpt", "deepl"]


def test_a_profiles_locales_limit_what_it_serves():
    claude = Profile("claude", RECORDING, locales=("sw", "pt-BR"))

    assert claude.allows("sw") and claude.allows("SW") and claude.allows("pt-br")
    assert not claude.allows("pt-PT") and not claude.allows("fr")
    assert Profile("any", RECORDING).allows("anything")


def test_routing_and_editor_choices_naming_unknown_profiles_are_check_errors(three):
    three(LOCALE_TRANSLATORS={"sw": "clade"}, EDITOR_TRANSLATORS=["gtp"])

    messages = [m.msg for m in bt_checks.check_translator_routing()]

    assert {m.id for m in bt_checks.check_translator_routing()} == {"wagtail_bulk_translate.E016"}
    assert any("LOCALE_TRANSLATORS['sw'] names the profile 'clade'" in m for m in messages)
    assert any("EDITOR_TRANSLATORS names the profile 'gtp'" in m for m in messages)


def test_a_profile_name_that_cannot_go_into_a_tool_name_is_refused(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATORS": {"deep l, eu": {"CLASS": PSEUDO}}}

    assert any("is not a short name" in message for message, _hint in profile_problems())


def test_a_default_profile_beside_translator_is_refused(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {"CLASS": PSEUDO},
        "TRANSLATORS": {"default": {"CLASS": RECORDING}},
    }

    assert any("profile named 'default'" in message for message, _hint in profile_problems())


def test_each_profiles_class_is_checked_and_named(three, settings):
    three()
    settings.WAGTAIL_BULK_TRANSLATE["TRANSLATORS"]["gpt"] = {"CLASS": "no.such.Translator"}

    errors = bt_checks.check_translator()

    assert [e.id for e in errors] == ["wagtail_bulk_translate.E003"]
    assert errors[0].msg.startswith("Translator profile 'gpt': ")
    assert "['TRANSLATORS']['gpt']" in errors[0].hint


def test_a_malformed_profile_is_a_settings_error(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATORS": {"gpt": {"OPTIONS": {}}}}

    errors = bt_checks.check_settings()

    assert any("['TRANSLATORS']['gpt'] has no 'CLASS' key" in e.msg for e in errors)
