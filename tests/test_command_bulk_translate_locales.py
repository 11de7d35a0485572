"""``manage.py bulk_translate_locales``: locales from WAGTAIL_CONTENT_LANGUAGES, idempotently."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from wagtail.models import Locale

pytestmark = pytest.mark.django_db

FOUR_LANGUAGES = [("en", "English"), ("fr", "French"), ("de", "German"), ("es", "Spanish")]


def run(*args: str) -> str:
    out = StringIO()
    call_command("bulk_translate_locales", *args, stdout=out)
    return out.getvalue()


def locale_codes() -> list[str]:
    return sorted(Locale.all_objects.values_list("language_code", flat=True))


@pytest.fixture
def only_english():
    """The database as Wagtail's migrations leave it: just the default locale."""
    Locale.all_objects.exclude(language_code="en").delete()


def test_creates_every_content_language_and_says_so(only_english):
    output = run()

    assert locale_codes() == ["de", "en", "es", "fr"]
    assert "Created locale fr (French)" in output
    assert "Created locale de (German)" in output
    assert "Locale exists: en (English)" in output


def test_second_run_creates_nothing(only_english):
    run()
    ids = dict(Locale.all_objects.values_list("language_code", "pk"))

    output = run()

    assert dict(Locale.all_objects.values_list("language_code", "pk")) == ids
    assert "Created" not in output
    assert output.count("Locale exists:") == 4


def test_only_the_codes_given(only_english):
    output = run("de")

    assert locale_codes() == ["de", "en"]
    assert output.strip() == "Created locale de (German)"


def test_a_code_that_is_not_a_content_language_is_refused(only_english):
    with pytest.raises(CommandError, match=r"Not in WAGTAIL_CONTENT_LANGUAGES: it, pt.*en, fr"):
        run("fr", "it", "pt")

    assert locale_codes() == ["en"]  # nothing created when any code is wrong


def test_refused_when_i18n_is_disabled(only_english, settings):
    settings.WAGTAIL_I18N_ENABLED = False

    with pytest.raises(CommandError, match="Set WAGTAIL_I18N_ENABLED = True"):
        run()

    assert locale_codes() == ["en"]


def test_content_language_missing_from_languages_is_a_clear_error(only_english, settings):
    settings.WAGTAIL_CONTENT_LANGUAGES = [*FOUR_LANGUAGES, ("it", "Italian")]

    with pytest.raises(CommandError, match="The language it is specified in"):
        run()


def test_a_single_content_language_warns_there_is_nothing_to_translate_into(only_english, settings):
    settings.LANGUAGES = settings.WAGTAIL_CONTENT_LANGUAGES = [("en", "English")]

    output = run()

    assert "Locale exists: en (English)" in output
    assert "nothing to translate into" in output
