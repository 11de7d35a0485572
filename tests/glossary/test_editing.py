"""Adding one term from a flagged translation: created or corrected for one language, other
languages kept, logged, and bad input refused before anything is written."""

from __future__ import annotations

import pytest
from wagtail.models import ModelLogEntry

from tests import factories
from wagtail_bulk_translate.errors import RunConfigurationError
from wagtail_bulk_translate.glossary.editing import save_term
from wagtail_bulk_translate.models import GlossaryChange, GlossaryTerm, GlossaryTranslation

pytestmark = pytest.mark.django_db


@pytest.fixture
def locales():
    return factories.locales()


def test_a_new_term_gets_its_translation_and_outdates_what_it_touches(locales):
    term = save_term(locales["en"].pk, locales["fr"].pk, " Summary ", " Résumé ")

    assert (term.source_term, term.translations.get().target_term) == ("Summary", "Résumé")
    assert ModelLogEntry.objects.get().action == "wagtail.create"
    assert GlossaryChange.objects.filter(term="Summary").exists()


def test_an_existing_term_is_corrected_for_one_language_and_keeps_the_others(locales):
    term = GlossaryTerm.objects.create(source_locale=locales["en"], source_term="Summary")
    GlossaryTranslation.objects.create(term=term, target_locale=locales["de"], target_term="Fazit")
    GlossaryTranslation.objects.create(term=term, target_locale=locales["fr"], target_term="Bilan")

    save_term(locales["en"].pk, locales["fr"].pk, "Summary", "Résumé")

    assert dict(term.translations.values_list("target_locale__language_code", "target_term")) == {
        "de": "Fazit",
        "fr": "Résumé",
    }
    assert ModelLogEntry.objects.get().action == "wagtail.edit"


def test_a_never_translate_term_needs_no_translation(locales):
    term = save_term(locales["en"].pk, locales["fr"].pk, "Northwind", never_translate=True)
    assert term.never_translate and not term.translations.exists()


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [("  ", "x", "Give the term"), ("Summary", "", "Give the translation of “Summary”")],
)
def test_bad_input_writes_nothing(locales, source, target, message):
    with pytest.raises(RunConfigurationError, match=message):
        save_term(locales["en"].pk, locales["fr"].pk, source, target)
    assert not GlossaryTerm.objects.exists()
