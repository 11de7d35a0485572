"""Loading the configured translator: a clear settings error for anything that is not one."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.translator_doubles import RECORDING_TRANSLATOR, RecordingTranslator
from wagtail_bulk_translate.translators.base import LocalizeTranslator
from wagtail_bulk_translate.translators.loading import (
    NotATranslatorError,
    TranslatorImportError,
    build_translator,
    configuration_problems,
    load_translator_class,
)

DUMMY_LOCALIZE = "wagtail_localize.machine_translators.dummy.DummyTranslator"


def test_a_translator_class_loads():
    assert load_translator_class(RECORDING_TRANSLATOR) is RecordingTranslator


def test_any_wagtail_localize_translator_is_a_translator():
    translator = build_translator(DUMMY_LOCALIZE, {})

    assert isinstance(translator, LocalizeTranslator)
    assert configuration_problems(DUMMY_LOCALIZE, {}) == []


@pytest.mark.parametrize(
    "class_path", ["collections.OrderedDict", "os.path.join", "wagtail_bulk_translate.conf"]
)
def test_something_that_is_not_a_machine_translator_is_refused(class_path):
    with pytest.raises(NotATranslatorError, match="is not a machine translator"):
        build_translator(class_path, {})
    with pytest.raises(NotATranslatorError):
        configuration_problems(class_path, {})


@pytest.mark.parametrize("class_path", ["nowhere.Translator", "NoDots", "", None, 3])
def test_what_cannot_be_imported_is_a_settings_error(class_path):
    with pytest.raises(TranslatorImportError) as refused:
        load_translator_class(class_path)

    assert isinstance(refused.value, ImproperlyConfigured)
    assert repr(class_path) in str(refused.value)


def test_a_module_failing_at_import_is_a_settings_error(tmp_path, monkeypatch):
    (tmp_path / "failing_translator.py").write_text("raise RuntimeError('no network')\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    with pytest.raises(TranslatorImportError, match="no network"):
        load_translator_class("failing_translator.Translator")
