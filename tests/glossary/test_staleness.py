"""A changed glossary term outdates only the translations of the texts it occurs in; a changed
house style outdates its locale's. The coverage report says why, a "changed" run sends only
those texts again, and translation memory does not serve them."""

from __future__ import annotations

import pytest
from wagtail.models import Locale

from demo.models import ArticlePage
from tests import factories as f
from tests.factories import subtree
from tests.translator_doubles import RecordingTranslator
from wagtail_bulk_translate import api
from wagtail_bulk_translate.glossary.matching import occurs
from wagtail_bulk_translate.glossary.staleness import pair_changes
from wagtail_bulk_translate.localize.strings import translation_memory
from wagtail_bulk_translate.models import GlossaryChange, GlossaryTranslation, HouseStyle
from wagtail_bulk_translate.runs.preflight import preflight

pytestmark = pytest.mark.django_db


@pytest.fixture
def translate(start, task_queue, recording_translator):
    def _translate(scope, targets=("fr",)):
        RecordingTranslator.reset()
        run = start(
            scope=scope,
            source_locale="en",
            target_locales=list(targets),
            mode="changed",
            publish_policy="publish",
        )
        task_queue.drain()
        run.refresh_from_db()
        assert run.status in {"succeeded", "partially_succeeded"}, run.status
        return run

    return _translate


@pytest.fixture
def news(task_queue):
    home = f.home_page("Home")
    index = f.index_page(home, "News")
    for name in ("Alpha", "Beta"):
        f.article(index, f"Story {name}")
    task_queue.clear()
    return subtree(home)


def sent(locale: str = "fr") -> list[str]:
    return sorted(
        text for code, texts in RecordingTranslator.calls if code == locale for text in texts
    )


def article_row(locale: str = "fr"):
    en, target = (Locale.objects.get(language_code=code) for code in ("en", locale))
    return next(r for r in api.coverage(en, [target]) if r.label == "demo.ArticlePage")


def test_a_changed_term_outdates_and_retranslates_only_the_texts_it_occurs_in(
    translate, news, add_term
):
    translate(news)
    first = sent()
    assert translate(news) and sent() == []  # nothing changed: nothing sent

    term = add_term("Beta", fr="Bêta")
    api.glossary_changed(term.source_locale_id)

    row = article_row()
    assert row.outdated == 1 and row.outdated_reasons == ("glossary term “Beta” changed",)
    assert preflight(news, "en", ["fr"]).units_needing_work == 1  # the preflight knows too
    translate(news)
    touched = sorted(t for t in first if occurs("Beta", t, case_sensitive=False))
    assert touched and sent() == touched  # "Story Beta", its summary, heading, paragraph
    assert article_row().outdated == 0
    translate(news)
    assert sent() == []

    # The term's translation changes: the same texts again, nothing else.
    GlossaryTranslation.objects.filter(term=term).update(target_term="Beta (grec)")
    api.glossary_changed(term.source_locale_id)
    assert article_row().outdated == 1
    translate(news)
    assert sent() == touched

    # Removing it outdates them too (they were translated with it).
    term.delete()
    api.glossary_changed(term.source_locale_id)
    translate(news)
    assert sent() == touched


def test_saving_an_unchanged_glossary_changes_nothing(translate, news, add_term):
    term = add_term("Alpha", fr="Alpha")
    api.glossary_changed(term.source_locale_id)
    translate(news)
    api.glossary_changed(term.source_locale_id)
    term.save()
    api.glossary_changed(term.source_locale_id)
    assert article_row().outdated == 0
    translate(news)
    assert sent() == []


def test_a_term_of_one_locale_outdates_nothing_in_another(translate, news, add_term):
    translate(news, targets=("fr", "de"))
    term = add_term("Beta", de="Beta")
    api.glossary_changed(term.source_locale_id)
    assert article_row("fr").outdated == 0 and article_row("de").outdated == 1
    translate(news, targets=("fr", "de"))
    assert sent("fr") == [] and sent("de")


def test_a_changed_house_style_outdates_its_locale(translate, news):
    translate(news, targets=("fr", "de"))
    first_fr = sent("fr")
    style = HouseStyle.objects.create(
        locale=Locale.objects.get(language_code="fr"), formality="less"
    )

    row = article_row("fr")
    assert row.outdated == 2 and row.outdated_reasons == ("house style changed",)
    assert article_row("de").outdated == 0
    translate(news, targets=("fr", "de"))
    assert sent("fr") == first_fr and sent("de") == []

    style.save()  # saved, not changed
    translate(news, targets=("fr", "de"))
    assert sent("fr") == []


def test_translation_memory_does_not_serve_a_text_a_changed_term_outdated(
    translate, news, add_term
):
    translate(news)
    en, fr = (Locale.objects.get(language_code=code) for code in ("en", "fr"))
    assert translation_memory(en.pk, ["Story Beta"], fr.pk)

    term = add_term("Beta", fr="Bêta")
    api.glossary_changed(term.source_locale_id)

    changes = pair_changes(en.pk, fr.pk)
    assert translation_memory(en.pk, ["Story Beta"], fr.pk, changes=changes) == {}
    assert translation_memory(en.pk, ["Story Alpha"], fr.pk, changes=changes)


def test_changes_are_recorded_per_pair(add_term, locales):
    term = add_term("Wagtail", never=True)
    api.glossary_changed(term.source_locale_id)
    pairs = set(GlossaryChange.objects.values_list("target_locale__language_code", "term"))
    assert {("fr", "Wagtail"), ("de", "Wagtail")} <= pairs
    assert ("en", "Wagtail") not in pairs


def test_a_canary_in_changed_mode_samples_the_texts_a_term_change_outdated(
    translate, news, add_term, start, task_queue
):
    translate(news)
    term = add_term("Beta", fr="Bêta")
    api.glossary_changed(term.source_locale_id)

    run = start(
        scope=news, source_locale="en", target_locales=["fr"], mode="changed", canary_size=1
    )
    beta = ArticlePage.objects.get(title="Story Beta", locale__language_code="en")
    task_queue.drain()
    # The canary samples among units that need work (engine.needs_work): only this one.
    succeeded = run.units.filter(status="succeeded").values_list("object_key", flat=True)
    assert list(succeeded) == [beta.translation_key]
