"""Coverage: translated, outdated and missing per content type and locale, set-based."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone
from wagtail.models import Locale, Page

from tests import factories
from wagtail_bulk_translate.api import coverage
from wagtail_bulk_translate.models import Run, Unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def tree():
    home = factories.home_page("Home")
    news = factories.index_page(home, "News")
    stories = [factories.article(news, title) for title in ("First story", "Second story")]
    return home, news, *stories


def translate(start, task_queue, scope, locales=("fr",), **options) -> Run:
    run = start(scope=scope, source_locale="en", target_locales=list(locales), **options)
    task_queue.drain()
    run.refresh_from_db()
    return run


def rows_by(rows, label, locale):
    return next(r for r in rows if r.label == label and r.locale == locale)


def en():
    return Locale.objects.get(language_code="en")


def test_nothing_translated_is_all_missing(tree):
    rows = coverage(en())

    articles = rows_by(rows, "demo.ArticlePage", "fr")
    counts = (articles.total, articles.translated, articles.outdated, articles.missing)
    assert counts == (2, 0, 0, 2)
    assert {r.locale for r in rows} == {"fr", "de", "es"}
    assert rows[0].kind == "pages"
    assert articles.needs_work and articles.percent_translated == 0


def test_translated_pages_count_per_locale(start, task_queue, tree):
    home, *_ = tree
    translate(start, task_queue, {"pages": [{"id": home.pk, "descendants": True}]})

    rows = coverage(en())

    articles = rows_by(rows, "demo.ArticlePage", "fr")
    assert (articles.translated, articles.outdated, articles.missing) == (2, 0, 0)
    assert articles.percent_translated == 100 and not articles.needs_work
    assert rows_by(rows, "demo.ArticlePage", "de").missing == 2
    assert rows_by(rows, "demo.HomePage", "fr").translated == 1


def test_a_source_edited_after_its_translation_is_outdated(start, task_queue, tree):
    home, _news, first, _second = tree
    translate(start, task_queue, {"pages": [{"id": home.pk, "descendants": True}]})
    first.refresh_from_db()
    first.title = "First story, updated"
    first.save_revision().publish()

    articles = rows_by(coverage(en()), "demo.ArticlePage", "fr")

    assert (articles.translated, articles.outdated, articles.missing) == (1, 1, 0)


def test_a_run_that_finds_the_edit_unchanged_makes_it_current_again(start, task_queue, tree):
    home, _news, first, _second = tree
    scope = {"pages": [{"id": home.pk, "descendants": True}]}
    translate(start, task_queue, scope)
    first.refresh_from_db()
    first.specific.save_revision()  # a new revision, same text

    assert rows_by(coverage(en()), "demo.ArticlePage", "fr").outdated == 1
    translate(start, task_queue, scope)  # mode "changed": skipped as unchanged

    assert rows_by(coverage(en()), "demo.ArticlePage", "fr").outdated == 0


def test_aliases_are_missing_and_reverted_runs_do_not_count(start, task_queue, tree):
    home, *_ = tree
    fr = Locale.objects.get(language_code="fr")
    home.copy_for_translation(fr, copy_parents=True, alias=True)

    assert rows_by(coverage(en()), "demo.HomePage", "fr").missing == 1

    run = translate(start, task_queue, {"pages": [{"id": home.pk, "descendants": False}]})
    home.refresh_from_db()
    home.save_revision()
    Unit.objects.filter(run=run).update(reverted_at=timezone.now())
    home_fr = rows_by(coverage(en()), "demo.HomePage", "fr")
    assert (home_fr.translated, home_fr.outdated, home_fr.missing) == (1, 0, 0)


def test_snippets_with_and_without_revisions(start, task_queue):
    category = factories.category()
    footer = factories.footer()
    translate(
        start,
        task_queue,
        {"snippets": ["demo.Category", "demo.FooterText"]},
        publish_policy="publish",
    )
    footer.refresh_from_db()
    footer.save_revision()
    category.name = "Voyages"
    category.save()

    rows = coverage(en())

    categories = rows_by(rows, "demo.Category", "fr")
    # A model without revisions records no edit time: outdated is unknown, not zero.
    assert (categories.translated, categories.outdated, categories.missing) == (1, None, 0)
    assert categories.kind == "snippets"
    footers = rows_by(rows, "demo.FooterText", "fr")
    assert (footers.translated, footers.outdated, footers.missing) == (0, 1, 0)
    assert rows_by(rows, "demo.FooterText", "de").missing == 1


def test_target_locales_can_be_narrowed_and_the_source_is_never_a_target(tree):
    fr = Locale.objects.get(language_code="fr")

    rows = coverage(en(), [fr, en()])

    assert {r.locale for r in rows} == {"fr"}
    assert coverage(en(), [en()]) == []


def test_query_count_does_not_grow_with_the_number_of_pages(start, task_queue, tree, count_queries):
    home, news, *_ = tree
    factories.category()
    translate(start, task_queue, {"pages": [{"id": home.pk, "descendants": True}]})
    with count_queries() as small:
        coverage(en())

    for i in range(30):
        factories.article(news, f"Story {i}")
    translate(start, task_queue, {"pages": [{"id": news.pk, "descendants": True}]}, ["fr", "de"])
    Page.objects.filter(depth__gt=2).update(
        latest_revision_created_at=timezone.now() + datetime.timedelta(days=1)
    )
    with count_queries() as large:
        rows = coverage(en())

    assert rows_by(rows, "demo.ArticlePage", "fr").outdated == 32
    assert len(large.captured_queries) == len(small.captured_queries)
    assert len(large.captured_queries) <= 20
