"""Tool names: what a run's machine translation keeps of its translator, and when it is
outdated. The rule for one row (plan) and the filter (translation memory, coverage) agree."""

from __future__ import annotations

import pytest
from wagtail.models import Locale
from wagtail_localize.models import StringTranslation, TranslationSource

from tests import factories as f
from wagtail_bulk_translate.localize.tool_names import (
    is_outdated_tool,
    machine_tool_name,
    outdated_tool_names,
    parse_tool,
)

DEEPL = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"
LLM = "wagtail_bulk_translate.translators.llm.LLMTranslator"


def test_the_default_profile_keeps_the_names_runs_wrote_before_profiles():
    assert machine_tool_name(DEEPL) == "DeepLTranslator (bulk)"
    assert (
        machine_tool_name(LLM, "0123456789abcdefXYZ")
        == "LLMTranslator (bulk, output 0123456789abcdef)"
    )
    assert machine_tool_name(LLM, "sig", "default") == "LLMTranslator (bulk, output sig)"
    assert machine_tool_name(LLM, "sig", "gpt") == "LLMTranslator (bulk, profile gpt, output sig)"
    assert machine_tool_name(DEEPL, "", "deepl-eu") == "DeepLTranslator (bulk, profile deepl-eu)"


def test_a_tool_name_reads_back_into_its_parts():
    tool = parse_tool("TokenTranslator (bulk, profile gpt, output model-a/prompt-1)")
    assert tool is not None
    assert (tool.class_name, tool.profile, tool.signature) == (
        "TokenTranslator",
        "gpt",
        "model-a/prompt-1",
    )
    assert parse_tool("DeepL") is None  # wagtail-localize's own button
    assert parse_tool("") is None


CASES = [
    # (written by, current tool, outdated?)
    ("DeepLTranslator (bulk)", "DeepLTranslator (bulk)", False),
    ("LLMTranslator (bulk, output a)", "LLMTranslator (bulk, output b)", True),
    ("LLMTranslator (bulk, output a)", "DeepLTranslator (bulk)", False),  # one translator
    ("DeepLTranslator (bulk)", "LLMTranslator (bulk, output b)", False),
    ("DeepLTranslator (bulk)", "DeepLTranslator (bulk, profile deepl)", False),  # named since
    ("DeepLTranslator (bulk, profile deepl)", "DeepLTranslator (bulk)", False),
    ("DeepLTranslator (bulk)", "LLMTranslator (bulk, profile gpt, output b)", True),
    ("DeepLTranslator (bulk, profile deepl)", "LLMTranslator (bulk, profile gpt, output b)", True),
    ("LLMTranslator (bulk, profile gpt, output b)", "DeepLTranslator (bulk, profile deepl)", True),
    ("LLMTranslator (bulk, profile gpt, output b)", "DeepLTranslator (bulk)", True),
    ("DeepLTranslator (bulk, profile eu)", "DeepLTranslator (bulk, profile us)", True),
    (
        "LLMTranslator (bulk, profile a, output s)",
        "LLMTranslator (bulk, profile a, output s)",
        False,
    ),
    (
        "LLMTranslator (bulk, profile a, output s)",
        "LLMTranslator (bulk, profile a, output t)",
        True,
    ),
    (
        "LLMTranslator (bulk, profile a_b, output s)",
        "LLMTranslator (bulk, profile a, output s)",
        True,
    ),
    ("DeepL", "LLMTranslator (bulk, profile gpt, output b)", False),  # not a run's
]


@pytest.fixture
def stored_translation(db):
    """One machine translation of a category's title into French, its tool name settable."""
    f.locales()
    source, _ = TranslationSource.get_or_create_from_instance(f.category("Tools", "Spades."))
    segment = source.stringsegment_set.select_related("string", "context").first()
    return StringTranslation.objects.create(
        translation_of=segment.string,
        context=segment.context,
        locale=Locale.objects.get(language_code="fr"),
        data="Outils",
        translation_type=StringTranslation.TRANSLATION_TYPE_MACHINE,
        tool_name="",
    )


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize(("written", "current", "outdated"), CASES)
def test_the_rule_for_one_row_and_the_filter_agree(
    stored_translation, settings, written, current, outdated, keep
):
    settings.WAGTAIL_BULK_TRANSLATE = {"RETRANSLATE_ON_PROFILE_CHANGE": not keep}
    stored_translation.tool_name = written
    stored_translation.save()
    found = StringTranslation.objects.filter(outdated_tool_names(current)).exists()

    assert is_outdated_tool(written, current) == found
    if not keep:
        assert found == outdated


@pytest.mark.parametrize(
    ("written", "current", "outdated"),
    [
        (
            "DeepLTranslator (bulk, profile deepl)",
            "LLMTranslator (bulk, profile gpt, output b)",
            False,
        ),
        ("DeepLTranslator (bulk, profile eu)", "DeepLTranslator (bulk, profile us)", False),
        (
            "LLMTranslator (bulk, profile a, output s)",
            "LLMTranslator (bulk, profile a, output t)",
            True,
        ),
    ],
)
def test_keeping_translations_on_a_profile_change_still_redoes_a_changed_signature(
    settings, written, current, outdated
):
    settings.WAGTAIL_BULK_TRANSLATE = {"RETRANSLATE_ON_PROFILE_CHANGE": False}

    assert is_outdated_tool(written, current) == outdated
