"""Runs do only what their editor may do in Wagtail: each object refused, with the reason."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from wagtail.models import GroupPagePermission, Page

from tests import factories as f
from wagtail_bulk_translate.api import retry_failed
from wagtail_bulk_translate.models import Unit, UnitStatus
from wagtail_bulk_translate.scope.permissions import destinations, refusal

pytestmark = pytest.mark.django_db


def french_pages():
    return Page.objects.filter(locale__language_code="fr")


def unit_of(run, page):
    return Unit.objects.get(run=run, object_id=str(page.pk))


@pytest.fixture
def run_as(start, bilingual, recording_translator, task_queue):
    """Start a run of the English tree into French as ``user``, and let the workers finish."""

    def _run(user, scope=None, **options):
        run = start(
            scope=scope or bilingual.scope,
            source_locale="en",
            target_locales=["fr"],
            user=user,
            **options,
        )
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _run


def test_an_english_editor_cannot_overwrite_and_publish_the_french_pages(run_as, bilingual):
    live_revision = bilingual.news_fr.live_revision_id
    run = run_as(bilingual.english_editor, mode="overwrite", publish_policy="publish")

    bilingual.news_fr.refresh_from_db()
    assert bilingual.news_fr.title == "Nouvelles, écrites à la main"
    assert bilingual.news_fr.live_revision_id == live_revision
    assert bilingual.news_fr.latest_revision_id == live_revision
    assert not french_pages().filter(translation_key=bilingual.story.translation_key).exists()
    refused = unit_of(run, bilingual.news)
    assert (refused.status, refused.error_code) == (UnitStatus.SKIPPED, "not_permitted")
    assert "english may not edit its French translation" in refused.error_message
    story = unit_of(run, bilingual.story)
    assert story.error_code == "not_permitted"
    assert "may not add pages under “Nouvelles, écrites à la main” in French" in (
        story.error_message
    )
    assert run.status == "succeeded"  # every unit ended, none failed: refusals are skips


def test_the_system_may_do_it(run_as, bilingual):
    run = run_as(None, mode="overwrite", publish_policy="publish")
    bilingual.news_fr.refresh_from_db()
    assert bilingual.news_fr.title != "Nouvelles, écrites à la main"
    assert french_pages().filter(translation_key=bilingual.story.translation_key, live=True)
    assert not run.units.filter(error_code="not_permitted").exists()


def test_publishing_needs_publish_rights_on_each_target(run_as, bilingual):
    editor = f.editor("both", pages=[bilingual.home, bilingual.home_fr])  # add + change

    published = run_as(editor, publish_policy="publish")
    assert not french_pages().filter(translation_key=bilingual.story.translation_key).exists()
    story = unit_of(published, bilingual.story)
    assert story.error_code == "not_permitted"
    assert "may not publish its French translation, and this run publishes it" in (
        story.error_message
    )

    drafts = run_as(editor, publish_policy="draft")
    assert unit_of(drafts, bilingual.story).status == UnitStatus.SUCCEEDED
    story_fr = french_pages().get(translation_key=bilingual.story.translation_key)
    assert not story_fr.live


def test_overwrite_needs_the_right_to_publish_the_target_too(run_as, bilingual):
    editor = f.editor("both", pages=[bilingual.home, bilingual.home_fr])  # add + change
    run = run_as(
        editor, scope={"objects": [["wagtailcore.Page", str(bilingual.news.pk)]]}, mode="overwrite"
    )
    assert "overwrite mode replaces translations made by hand" in (
        unit_of(run, bilingual.news).error_message
    )
    bilingual.news_fr.refresh_from_db()
    assert bilingual.news_fr.title == "Nouvelles, écrites à la main"


def test_the_source_must_be_editable_by_the_run_s_editor(run_as, bilingual):
    run = run_as(bilingual.french_editor, publish_policy="publish")
    assert set(run.units.values_list("error_code", flat=True)) == {"not_permitted"}
    assert "french may not edit “Story”, the source" in unit_of(run, bilingual.story).error_message


def test_rights_are_checked_when_the_work_is_done_not_only_at_start(
    start, bilingual, recording_translator, task_queue
):
    editor = f.editor("both", pages=[bilingual.home, bilingual.home_fr])
    run = start(scope=bilingual.scope, source_locale="en", target_locales=["fr"], user=editor)
    GroupPagePermission.objects.filter(page=bilingual.home_fr).delete()
    task_queue.drain()
    assert unit_of(run, bilingual.story).error_code == "not_permitted"
    assert not french_pages().filter(translation_key=bilingual.story.translation_key).exists()


def test_a_run_whose_editor_was_deleted_writes_nothing(
    start, bilingual, recording_translator, task_queue
):
    editor = f.editor("gone", pages=[bilingual.home, bilingual.home_fr])
    run = start(scope=bilingual.scope, source_locale="en", target_locales=["fr"], user=editor)
    editor.delete()
    task_queue.drain()
    assert "since deleted" in unit_of(run, bilingual.story).error_message
    assert not french_pages().filter(translation_key=bilingual.story.translation_key).exists()


def test_a_retry_acts_for_the_editor_who_retries(
    run_as, bilingual, task_queue, django_capture_on_commit_callbacks
):
    run = run_as(bilingual.english_editor, publish_policy="publish")
    editor = f.editor(
        "both", pages=[bilingual.home, bilingual.home_fr], page_actions=("add", "change", "publish")
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert retry_failed(run.pk, user=editor) == 3  # Home, News and Story come back
    task_queue.drain()
    run.refresh_from_db()
    assert run.acting_user == editor and run.created_by == bilingual.english_editor
    assert french_pages().filter(translation_key=bilingual.story.translation_key, live=True)


def test_snippets_follow_the_model_s_permissions(run_as, bilingual):
    scope = {"snippets": ["demo.Category"]}
    editor = f.editor("snippets", permissions=("change_category",))
    run = run_as(editor, scope=scope)
    unit = run.units.get()
    assert unit.error_code == "not_permitted"
    assert "may not add categories" in unit.error_message

    editor.groups.get().permissions.add(Permission.objects.get(codename="add_category"))
    editor = type(editor).objects.get(pk=editor.pk)  # Django caches permissions per object
    run = run_as(editor, scope=scope)
    assert run.units.get().status == UnitStatus.SUCCEEDED


def test_a_new_page_goes_under_the_nearest_french_page_above_it(bilingual):
    found = destinations([bilingual.story, bilingual.news, bilingual.home], bilingual.fr)
    assert found[bilingual.story.pk].parent.pk == bilingual.news_fr.pk
    assert found[bilingual.news.pk].target.pk == bilingual.news_fr.pk
    assert found[bilingual.home.pk].target.pk == bilingual.home_fr.pk  # an alias is a target
    bilingual.news_fr.delete()
    found = destinations([bilingual.story], bilingual.fr)
    assert found[bilingual.story.pk].parent.pk == bilingual.home_fr.pk


def test_a_superuser_and_the_system_may_do_everything(bilingual, django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    for user in (root, None):
        assert refusal(user, bilingual.story, bilingual.fr, publish=True, overwrite=True) is None
