"""Revert restores exactly what a run changed and refuses targets edited after it."""

from __future__ import annotations

import pytest
from wagtail.models import Locale, Page
from wagtail_localize.models import StringTranslation, Translation

from tests import factories
from wagtail_bulk_translate.api import revert_summary, start_revert
from wagtail_bulk_translate.errors import RunConfigurationError
from wagtail_bulk_translate.models import Run, RunStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def revert(task_queue, django_capture_on_commit_callbacks):
    def _revert(run: Run) -> Run:
        with django_capture_on_commit_callbacks(execute=True):
            start_revert(run.pk)
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _revert


@pytest.fixture
def story_tree():
    home = factories.home_page("Home")
    news = factories.index_page(home, "News")
    first = factories.article(news, "First story")
    second = factories.article(news, "Second story")
    return home, news, first, second


def translate_tree(start, task_queue, root, locales=("fr",), **options) -> Run:
    run = start(
        scope={"pages": [{"id": root.pk, "descendants": True}]},
        source_locale="en",
        target_locales=list(locales),
        **options,
    )
    task_queue.drain()
    run.refresh_from_db()
    return run


def page_state(page: Page) -> dict:
    page = Page.objects.get(pk=page.pk).specific
    return {
        "title": page.title,
        "live": page.live,
        "latest_revision_id": page.latest_revision_id,
        "live_revision_id": page.live_revision_id,
        "has_unpublished_changes": page.has_unpublished_changes,
        "body": page.body.get_prep_value() if hasattr(page, "body") else None,
    }


def fr_pages():
    return Page.objects.filter(locale__language_code="fr", depth__gt=1)


def test_revert_removes_the_targets_a_run_created(start, task_queue, story_tree, revert):
    home, *_ = story_tree
    run = translate_tree(start, task_queue, home, publish_policy="publish")
    assert run.status == RunStatus.SUCCEEDED
    assert fr_pages().count() == 4
    strings_before_revert = StringTranslation.objects.filter(locale__language_code="fr").count()
    assert strings_before_revert > 0

    run = revert(run)

    assert run.status == RunStatus.REVERTED
    assert fr_pages().count() == 0
    assert not Translation.objects.filter(target_locale__language_code="fr").exists()
    assert not StringTranslation.objects.filter(locale__language_code="fr").exists()
    assert Page.find_problems() == ([], [], [], [], [])
    summary = revert_summary(run)
    assert (summary.reverted, summary.refused, summary.remaining) == (4, 0, 0)


def test_revert_restores_existing_targets_exactly(start, task_queue, story_tree, revert):
    home, _news, first, _second = story_tree
    first_run = translate_tree(start, task_queue, home, publish_policy="publish")
    fr_first = first.get_translation(Locale.objects.get(language_code="fr"))
    before = page_state(fr_first)
    strings_before = dict(
        StringTranslation.objects.filter(locale__language_code="fr").values_list("pk", "data")
    )
    assert first_run.status == RunStatus.SUCCEEDED

    first.title = "First story, revised"
    first.save_revision().publish()
    second_run = translate_tree(start, task_queue, home, mode="refresh", publish_policy="publish")
    assert page_state(fr_first)["title"] != before["title"]

    revert(second_run)

    assert page_state(fr_first) == before
    strings_after = dict(
        StringTranslation.objects.filter(locale__language_code="fr").values_list("pk", "data")
    )
    assert strings_after == strings_before


def test_revert_keeps_a_target_edited_after_the_run(start, task_queue, story_tree, revert):
    home, _news, first, _second = story_tree
    run = translate_tree(start, task_queue, home, publish_policy="publish")
    fr_first = first.get_translation(Locale.objects.get(language_code="fr")).specific
    fr_first.title = "Édité à la main"
    fr_first.save_revision().publish()

    run = revert(run)

    assert Page.objects.get(pk=fr_first.pk).title == "Édité à la main"
    refused = {u.target_object_id: u.revert_refused for u in run.units.exclude(revert_refused="")}
    assert "changed after this run" in refused.pop(str(fr_first.pk))
    # Its ancestors stay too (a page is not deleted from under a kept child); the rest goes.
    ancestors = {str(p.pk) for p in fr_first.get_ancestors().filter(depth__gt=1)}
    assert set(refused) == ancestors
    assert all("kept too" in reason for reason in refused.values())
    assert fr_pages().count() == 1 + len(ancestors)
    assert Page.find_problems() == ([], [], [], [], [])


def test_revert_restores_the_draft_state_of_a_live_target(start, task_queue, story_tree, revert):
    home, *_ = story_tree
    translate_tree(start, task_queue, home, publish_policy="publish")
    fr_home = home.get_translation(Locale.objects.get(language_code="fr"))
    before = page_state(fr_home)
    home.title = "Home, renamed"
    home.save_revision().publish()
    draft_run = translate_tree(start, task_queue, home, mode="refresh", publish_policy="draft")
    after_run = page_state(fr_home)
    assert after_run["live"] and after_run["has_unpublished_changes"]
    assert after_run["title"] == before["title"]  # a draft of a live page leaves it live as is

    revert(draft_run)

    assert page_state(fr_home) == before


def test_snippet_and_setting_units_revert(start, task_queue, revert):
    from demo.models import Category, SiteBranding

    factories.locales()
    category = factories.category("Travel")
    SiteBranding.objects.create(locale=Locale.get_default(), tagline="Slow news")
    run = start(
        scope={"snippets": ["demo.Category"], "settings": ["demo.SiteBranding"]},
        source_locale="en",
        target_locales=["de"],
    )
    task_queue.drain()
    assert Category.objects.filter(translation_key=category.translation_key).count() == 2
    assert SiteBranding.objects.count() == 2

    revert(run)

    assert Category.objects.filter(translation_key=category.translation_key).count() == 1
    assert SiteBranding.objects.count() == 1


def test_revert_is_refused_for_runs_in_progress_or_reverted(start, task_queue, story_tree, revert):
    home, *_ = story_tree
    run = start(
        scope={"pages": [{"id": home.pk, "descendants": True}]},
        source_locale="en",
        target_locales=["fr"],
    )
    with pytest.raises(RunConfigurationError, match="finished"):
        start_revert(run.pk)
    task_queue.drain()
    revert(run)
    with pytest.raises(RunConfigurationError, match="already"):
        start_revert(run.pk)


def test_revert_window(start, task_queue, story_tree, settings, revert):
    home, *_ = story_tree
    run = translate_tree(start, task_queue, home)
    settings.WAGTAIL_BULK_TRANSLATE = {**settings.WAGTAIL_BULK_TRANSLATE, "REVERT_WINDOW_DAYS": 0}
    with pytest.raises(RunConfigurationError, match="0 days"):
        start_revert(run.pk)
    assert fr_pages().count() == 4


@pytest.mark.parametrize("publish_policy", ["publish", "mirror", "draft"])
def test_a_reverted_write_is_not_taken_for_a_manual_edit_by_later_runs(
    start, task_queue, story_tree, revert, publish_policy
):
    home, _news, first, _second = story_tree
    translate_tree(start, task_queue, home, publish_policy="draft")
    second_run = translate_tree(start, task_queue, home, mode="refresh", publish_policy="draft")
    revert(second_run)
    fr_first = first.get_translation(Locale.objects.get(language_code="fr"))
    title_after_revert = fr_first.get_latest_revision_as_object().title

    first.title = "First story, revised"
    first.save_revision().publish()
    later = translate_tree(start, task_queue, home, publish_policy=publish_policy)

    assert not later.units.filter(error_code="manual_edits_kept").exists()
    unit = later.units.get(object_id=str(first.pk), target_locale__language_code="fr")
    assert unit.status == "succeeded"
    fr_first = Page.objects.get(pk=fr_first.pk)
    assert fr_first.get_latest_revision_as_object().title != title_after_revert
