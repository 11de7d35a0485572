"""The DeepL translator reads the admin's glossary and house style (against the fake DeepL)."""

from __future__ import annotations

import pytest

from tests import factories
from tests.fake_deepl import fake_deepl  # noqa: F401
from wagtail_bulk_translate.glossary.sync import sync_deepl_glossaries
from wagtail_bulk_translate.models import (
    DeepLGlossary,
    GlossaryTerm,
    GlossaryTranslation,
    HouseStyle,
)
from wagtail_bulk_translate.translators.deepl import DeepLTranslator

pytestmark = pytest.mark.django_db
DEEPL = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"


@pytest.fixture
def options(settings, fake_deepl):  # noqa: F811
    options = {"AUTH_KEY": "test-key", "SERVER_URL": fake_deepl.url, "FORMALITY": {"de": "less"}}
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": options}}
    return options


@pytest.fixture
def locales(db):
    return factories.locales()


def synced_glossary(locales) -> str:
    term = GlossaryTerm.objects.create(source_locale=locales["en"], source_term="lawn")
    GlossaryTranslation.objects.create(term=term, target_locale=locales["de"], target_term="Rasen")
    sync_deepl_glossaries()
    return DeepLGlossary.objects.get(target_locale=locales["de"]).glossary_id


def test_translations_use_the_synced_glossary_without_settings(options, locales, fake_deepl):  # noqa: F811
    glossary_id = synced_glossary(locales)

    DeepLTranslator(options).translate_texts(locales["en"], locales["de"], ["Mow the lawn"])
    DeepLTranslator(options).translate_texts(locales["de"], locales["en"], ["Mäh den Rasen"])

    to_de, to_en = fake_deepl.translate_requests()
    assert to_de.glossary_id == glossary_id
    assert to_en.glossary_id is None  # no de→en terms


def test_glossaries_in_the_options_stay_an_override(options, locales, fake_deepl):  # noqa: F811
    synced_glossary(locales)
    own = fake_deepl.create_glossary("own", "en", "de", {"lawn": "Wiese"})

    translator = DeepLTranslator({**options, "GLOSSARIES": {"en:de": own}})
    translator.translate_texts(locales["en"], locales["de"], ["Mow the lawn"])

    assert fake_deepl.translate_requests()[0].glossary_id == own


def test_house_style_formality_wins_over_the_option(options, locales, fake_deepl):  # noqa: F811
    DeepLTranslator(options).translate_texts(locales["en"], locales["de"], ["Hello"])
    HouseStyle.objects.create(locale=locales["de"], formality="prefer_more")
    HouseStyle.objects.create(locale=locales["fr"], instructions="Vouvoyer.")  # no formality

    DeepLTranslator(options).translate_texts(locales["en"], locales["de"], ["Hello"])
    DeepLTranslator({**options, "FORMALITY": {"fr": "more"}}).translate_texts(
        locales["en"], locales["fr"], ["Hello"]
    )

    assert [r.formality for r in fake_deepl.translate_requests()] == ["less", "prefer_more", "more"]
