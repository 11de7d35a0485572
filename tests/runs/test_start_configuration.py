"""Starting a run that could not work is refused up front, with what to change.

A translator missing what it needs (DeepL without a key) is only a warning for the system
checks, so every other command and worker still starts; starting a run, or its preflight, is
what is refused. Settings the system checks call wrong refuse runs too (the admin under a
server that does not run the checks).
"""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from tests import factories as f
from tests.translator_doubles import translator_setting
from wagtail_bulk_translate.api import preflight
from wagtail_bulk_translate.errors import RunConfigurationError
from wagtail_bulk_translate.models import Run

pytestmark = pytest.mark.django_db

DEEPL = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"


@pytest.fixture
def page_tree(task_queue):
    f.locales()
    home = f.home_page()
    f.article(f.index_page(home, "News"), "Story")
    return {"pages": [{"id": home.pk, "descendants": True}]}


@pytest.fixture
def deepl_without_a_key(settings, monkeypatch, fake_deepl):
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {"CLASS": DEEPL, "OPTIONS": {"SERVER_URL": fake_deepl.url}}
    }


def test_a_run_needing_the_missing_deepl_key_is_refused_saying_how_to_set_it(
    start, page_tree, deepl_without_a_key
):
    with pytest.raises(RunConfigurationError) as refused:
        start(scope=page_tree, source_locale="en", target_locales=["fr"])

    assert "The DeepL translator has no API key." in str(refused.value)
    assert "DEEPL_AUTH_KEY" in str(refused.value)
    assert not Run.objects.exists()


def test_the_preflight_of_such_a_run_is_refused_too(page_tree, deepl_without_a_key):
    with pytest.raises(RunConfigurationError, match="DEEPL_AUTH_KEY"):
        preflight(page_tree, "en", ["fr"])


def test_with_the_key_the_same_run_starts(start, page_tree, deepl_without_a_key, monkeypatch):
    monkeypatch.setenv("DEEPL_AUTH_KEY", "abc:fx")

    run = start(scope=page_tree, source_locale="en", target_locales=["fr"])

    assert Run.objects.filter(pk=run.pk).exists()
    assert "AUTH_KEY" not in run.translator_options  # never stored


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({"MAX_ATTEMPTS": 0}, "['MAX_ATTEMPTS'] is 0"),
        ({"LEASE_SECONDS": "300"}, "['LEASE_SECONDS'] is '300'"),
        ({"UNITS_PER_CLAIMS": 5}, "did you mean UNITS_PER_CLAIM?"),
    ],
)
def test_a_run_under_settings_the_checks_refuse_is_refused(
    start, page_tree, settings, values, named
):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": translator_setting(), **values}

    with pytest.raises(RunConfigurationError) as refused:
        start(scope=page_tree, source_locale="en", target_locales=["fr"])

    assert named in str(refused.value)
    assert not Run.objects.exists()


@pytest.mark.parametrize(
    ("class_path", "message"),
    [
        ("collections.OrderedDict", "'collections.OrderedDict' is not a machine translator"),
        ("nowhere.Translator", "'nowhere.Translator' cannot be imported"),
    ],
)
def test_a_translator_class_that_cannot_translate_is_refused_with_a_clear_message(
    start, page_tree, settings, class_path, message
):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": {"CLASS": class_path}}

    with pytest.raises(RunConfigurationError) as refused:
        start(scope=page_tree, source_locale="en", target_locales=["fr"])

    assert message in str(refused.value)
    assert not Run.objects.exists()


@pytest.mark.parametrize("estimate", [False, True], ids=["start", "estimate"])
def test_the_command_line_refuses_it_with_the_message_and_exit_code_2(
    page_tree, deepl_without_a_key, estimate
):
    args = ["bulk_translate", "start", "--all", "--locales", "fr"]
    with pytest.raises(CommandError) as refused:
        call_command(*args, *(["--estimate"] if estimate else []))

    assert "DEEPL_AUTH_KEY" in str(refused.value)
    assert refused.value.returncode == 2
    assert not Run.objects.exists()
