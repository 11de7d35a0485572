"""Output signatures: a translator's changed model/prompt/glossary makes what it wrote outdated.

The signature is kept in the StringTranslation's tool name; a changed run translates again
the strings written under another signature (and only those), and the coverage report counts
their objects outdated. An empty signature (DeepL, pseudo) changes nothing.
"""

from __future__ import annotations

import pytest
from wagtail.models import Locale
from wagtail_localize.models import StringTranslation

from tests import factories as f
from tests.factories import subtree
from tests.translator_doubles import RECORDING_TRANSLATOR, TOKEN_TRANSLATOR, TokenTranslator
from wagtail_bulk_translate.api import coverage
from wagtail_bulk_translate.models import Run, UnitStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def translate(start, task_queue, conf):
    def _translate(scope, translator=TOKEN_TRANSLATOR, mode="changed", **options) -> Run:
        conf(TRANSLATOR={"CLASS": translator, "OPTIONS": options}, UNITS_PER_CLAIM=10)
        TokenTranslator.reset()
        run = start(
            scope=scope,
            source_locale="en",
            target_locales=["fr"],
            mode=mode,
            publish_policy="publish",
        )
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _translate


@pytest.fixture
def news(task_queue):
    home = f.home_page("Home")
    index = f.index_page(home, "News")
    for i in range(2):
        f.article(index, f"Story {i}")
    task_queue.clear()
    return subtree(home)


def outdated_articles() -> int | None:
    en, fr = (Locale.objects.get(language_code=code) for code in ("en", "fr"))
    row = next(r for r in coverage(en, [fr]) if r.label == "demo.ArticlePage")
    return row.outdated


def test_translations_keep_the_signature_they_were_written_under(translate, news):
    translate(news, SIGNATURE="model-a/prompt-1")

    tools = set(StringTranslation.objects.values_list("tool_name", flat=True))
    assert tools == {"TokenTranslator (bulk, output model-a/prompt-1)"}


def test_a_changed_signature_makes_its_translations_outdated_and_a_changed_run_redoes_them(
    translate, news, conf
):
    translate(news, SIGNATURE="v1")
    sent_first = sorted(TokenTranslator.texts_sent())
    assert translate(news, SIGNATURE="v1").units.filter(status=UnitStatus.SUCCEEDED).count() == 0
    assert TokenTranslator.calls == []  # same signature: nothing to do
    assert outdated_articles() == 0

    # An editor corrects one title by hand: a person's translation is never redone.
    manual = StringTranslation.objects.get(translation_of__data="Story 0")
    manual.translation_type = StringTranslation.TRANSLATION_TYPE_MANUAL
    manual.data = "Histoire zéro"
    manual.save()

    # The prompt changes: what the machine wrote under v1 is outdated.
    conf(TRANSLATOR={"CLASS": TOKEN_TRANSLATOR, "OPTIONS": {"SIGNATURE": "v2"}})
    assert outdated_articles() == 2

    run = translate(news, SIGNATURE="v2")

    assert run.status == "succeeded"
    assert sorted(TokenTranslator.texts_sent()) == sorted(set(sent_first) - {"Story 0"})
    assert outdated_articles() == 0
    machine = StringTranslation.objects.filter(
        translation_type=StringTranslation.TRANSLATION_TYPE_MACHINE
    )
    assert set(machine.values_list("tool_name", flat=True)) == {"TokenTranslator (bulk, output v2)"}
    assert StringTranslation.objects.get(pk=manual.pk).data == "Histoire zéro"


def test_an_empty_signature_changes_nothing(translate, news, recording_translator):
    """DeepL and pseudo translators sign nothing: their tool name and hashes are as before."""
    translate(news, translator=RECORDING_TRANSLATOR)
    recording_translator.reset()
    run = translate(news, translator=RECORDING_TRANSLATOR)

    assert run.units.filter(status=UnitStatus.SUCCEEDED).count() == 0  # skipped: unchanged
    assert recording_translator.calls == []
    assert outdated_articles() == 0
    tools = set(StringTranslation.objects.values_list("tool_name", flat=True))
    assert tools == {"RecordingTranslator (bulk)"}


def test_leaving_a_signed_translator_sends_nothing_again(translate, news, recording_translator):
    """Translations a language model wrote are not outdated for an unsigned translator."""
    translate(news, SIGNATURE="v1")
    recording_translator.reset()
    run = translate(news, translator=RECORDING_TRANSLATOR)

    assert run.status == "succeeded"
    assert recording_translator.calls == []
    assert outdated_articles() == 0
