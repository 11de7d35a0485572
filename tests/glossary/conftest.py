"""Glossary fixtures: the site's locales and a way to add terms."""

from __future__ import annotations

import pytest

from tests import factories
from wagtail_bulk_translate.models import GlossaryTerm, GlossaryTranslation

DEEPL = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"


@pytest.fixture
def locales(db):
    return factories.locales()


@pytest.fixture
def add_term(locales):
    def add(term: str, source: str = "en", *, never: bool = False, case: bool = False, **targets):
        row = GlossaryTerm.objects.create(
            source_locale=locales[source],
            source_term=term,
            never_translate=never,
            case_sensitive=case,
        )
        for code, target in targets.items():
            GlossaryTranslation.objects.create(
                term=row, target_locale=locales[code], target_term=target
            )
        return row

    return add


@pytest.fixture
def deepl_settings(settings, fake_deepl):
    """Runs and glossary syncs use DeepL, on the fake server."""
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {
            "CLASS": DEEPL,
            "OPTIONS": {"AUTH_KEY": "test-key", "SERVER_URL": fake_deepl.url, "RETRIES": 0},
        }
    }
    return fake_deepl
