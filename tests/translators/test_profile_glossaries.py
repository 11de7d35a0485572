"""Glossaries and the editor's button under translator profiles: the admin's glossary syncs to
the first DeepL profile's account, whatever translates the other locales; only that profile
uses it; wagtail-localize's button follows the routing through RoutedTranslator."""

from __future__ import annotations

import pytest
from wagtail.models import Locale

from tests import factories
from tests.translators.conftest import DEEPL_CLASS, LLM_CLASS, llm_options
from wagtail_bulk_translate.conf import checks as bt_checks
from wagtail_bulk_translate.glossary.sync import sync_deepl_glossaries
from wagtail_bulk_translate.models import DeepLGlossary, GlossaryTerm, GlossaryTranslation
from wagtail_bulk_translate.translators.loading import build_translator
from wagtail_bulk_translate.translators.routed import RoutedTranslator

pytestmark = pytest.mark.django_db


@pytest.fixture
def sites_profiles(settings, fake_deepl, fake_openai):
    deepl = {"AUTH_KEY": "test-key", "SERVER_URL": fake_deepl.url}
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATORS": {
            "gpt": {"CLASS": LLM_CLASS, "OPTIONS": llm_options(fake_openai)},
            "deepl": {"CLASS": DEEPL_CLASS, "OPTIONS": deepl},
            "deepl-us": {"CLASS": DEEPL_CLASS, "OPTIONS": {**deepl, "AUTH_KEY": "other"}},
        },
        "LOCALE_TRANSLATORS": {"de": "deepl", "*": "gpt"},
    }
    return deepl


@pytest.fixture
def locales(db):
    return factories.locales()


def test_the_glossary_syncs_to_the_first_deepl_profile_and_only_it_uses_it(
    sites_profiles, locales, fake_deepl
):
    term = GlossaryTerm.objects.create(source_locale=locales["en"], source_term="lawn")
    GlossaryTranslation.objects.create(term=term, target_locale=locales["de"], target_term="Rasen")

    report = sync_deepl_glossaries()

    assert report.translator == DEEPL_CLASS
    glossary_id = DeepLGlossary.objects.get(target_locale=locales["de"]).glossary_id
    assert glossary_id
    for name in ("deepl", "deepl-us"):
        build_translator(DEEPL_CLASS, {"SERVER_URL": fake_deepl.url}, name).translate_texts(
            locales["en"], locales["de"], ["Mow the lawn"]
        )
    first, second = fake_deepl.translate_requests()
    assert first.glossary_id == glossary_id and first.auth_key == "test-key"
    assert second.glossary_id is None and second.auth_key == "other"


def test_a_second_deepl_profile_is_warned_about(sites_profiles):
    warnings = bt_checks.check_glossary_profiles()

    assert [w.id for w in warnings] == ["wagtail_bulk_translate.W011"]
    assert "'deepl' only: 'deepl-us' translate without it" in warnings[0].msg


def test_wagtail_localizes_button_follows_the_routing(
    sites_profiles, locales, settings, fake_deepl, fake_openai
):
    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {
        "CLASS": "wagtail_bulk_translate.translators.routed.RoutedTranslator"
    }
    button = RoutedTranslator()
    en, de, fr = (Locale.objects.get(language_code=c) for c in ("en", "de", "fr"))

    assert button.can_translate(en, de) and button.can_translate(en, fr)
    assert button.routed(en, de).profile == "deepl"
    assert button.routed(en, fr).profile == "gpt"
    assert bt_checks.check_translator() == []  # the routed class is not a profile of its own
