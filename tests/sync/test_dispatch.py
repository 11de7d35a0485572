"""Due changes become one automatic run; a change a run holds, or held by a pause, waits and
is never lost."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from wagtail.models import Page

from tests import factories as f
from wagtail_bulk_translate.models import PendingChange, Run, Unit
from wagtail_bulk_translate.sync import dispatch, switch

pytestmark = pytest.mark.django_db


def dispatch_and_drain(task_queue):
    report = task_queue.run_first("dispatch_sync_changes")
    task_queue.drain()
    return report


def test_a_publish_becomes_an_automatic_changed_run_into_the_synced_locales(
    synced, publish, publisher, task_queue
):
    publish(synced.story, title="Story zero, edited")
    report = dispatch_and_drain(task_queue)

    run = Run.objects.get()
    assert report["runs_started"] == [run.pk]
    assert (run.origin, run.mode, run.publish_policy, run.created_by) == (
        "automatic", "changed", "draft", publisher
    )  # fmt: skip
    assert run.scope["objects"] == [["wagtailcore.Page", str(synced.story.pk)]]
    assert sorted(run.target_locales.values_list("language_code", flat=True)) == ["de", "fr"]
    assert run.status == "succeeded"
    assert not PendingChange.objects.exists()
    french = synced.story.get_translation(f.locales()["fr"])
    assert french.get_latest_revision_as_object().title != "Story zero, edited"
    assert "Story zero, edited" not in str(french.title)  # a draft: the live title is not set


def test_ten_publishes_in_the_window_are_one_unit_per_locale(synced, publish, conf, task_queue):
    conf(SYNC_WINDOW_SECONDS=300)
    for i in range(10):
        publish(synced.story, title=f"Edit {i}")
    PendingChange.objects.update(due_at=timezone.now())  # the window has passed
    dispatch_and_drain(task_queue)

    units = Unit.objects.filter(object_id=str(synced.story.pk))  # (its parents came along)
    assert sorted(units.values_list("target_locale__language_code", flat=True)) == ["de", "fr"]
    assert Run.objects.count() == 1


def test_a_change_not_due_yet_waits(synced, publish, conf, task_queue):
    conf(SYNC_WINDOW_SECONDS=300)
    publish(synced.story, title="Later")
    report = dispatch_and_drain(task_queue)
    assert report["runs_started"] == [] and PendingChange.objects.count() == 1


def test_a_publish_while_a_run_holds_the_object_is_translated_after_it(
    synced, publish, begin, task_queue, recording_translator
):
    holding = begin(locales=("fr",))
    task_queue.run_first("coordinate_run")  # its units are in flight
    publish(synced.story, title="Edited during the run")
    report = task_queue.run_first("dispatch_sync_changes")

    assert report["runs_started"] == [] and report["waiting"] == 1
    change = PendingChange.objects.get()
    assert f"Run #{holding.pk}" in change.waiting_reason
    task_queue.drain()  # the holding run ends; the queued retry dispatches the change

    automatic = Run.objects.get(origin="automatic")
    assert automatic.status == "succeeded"
    assert not PendingChange.objects.exists()
    # Whichever run's unit read the story last, the edit reached both locales.
    sent = {(code, text) for code, texts in recording_translator.calls for text in texts}
    assert {("fr", "Edited during the run"), ("de", "Edited during the run")} <= sent
    story_fr = Unit.objects.filter(
        object_id=str(synced.story.pk), target_locale__language_code="fr"
    )
    assert set(story_fr.values_list("status", flat=True)) <= {"succeeded", "skipped"}


def test_paused_changes_are_remembered_and_caught_up_on_resume(synced, publish, task_queue):
    switch.pause_all()
    publish(synced.story, title="Published while paused")
    assert dispatch_and_drain(task_queue)["paused"] is True
    assert PendingChange.objects.count() == 1 and not Run.objects.exists()

    with task_queue.capture_on_commit(execute=True):
        switch.resume_all()
    assert task_queue.plugin_names() == ["dispatch_sync_changes"]
    dispatch_and_drain(task_queue)
    assert Run.objects.get().status == "succeeded"
    assert not PendingChange.objects.exists()


def test_pausing_all_pauses_automatic_runs_and_resuming_resumes_them(synced, publish, task_queue):
    publish(synced.story, title="Edited")
    task_queue.run_first("dispatch_sync_changes")
    run = Run.objects.get()
    task_queue.run_first("coordinate_run")

    assert switch.pause_all() == 1
    run.refresh_from_db()
    assert run.status == "paused"
    with task_queue.capture_on_commit(execute=True):
        assert switch.resume_all() == 1
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == "succeeded"


def test_a_paused_site_holds_its_changes_until_resumed(synced, publish, task_queue):
    switch.set_site_paused(synced.configuration.pk, True)
    publish(synced.story, title="Edited")
    report = dispatch_and_drain(task_queue)
    assert report["waiting"] == 1 and PendingChange.objects.get().held_by_pause

    with task_queue.capture_on_commit(execute=True):
        switch.set_site_paused(synced.configuration.pk, False)
    dispatch_and_drain(task_queue)
    assert Run.objects.get().status == "succeeded"


def test_a_new_child_page_of_the_synced_tree_is_translated_with_it(synced, publish, task_queue):
    child = f.article(synced.news, "Brand new story")
    publish(child)
    dispatch_and_drain(task_queue)
    assert child.get_translation_or_none(f.locales()["fr"]) is not None
    assert synced.news.get_translation_or_none(f.locales()["fr"]) is not None


def test_a_change_whose_source_was_deleted_is_dropped(synced, publish, conf, task_queue):
    conf(SYNC_WINDOW_SECONDS=300)
    publish(synced.other, title="Soon gone")
    Page.objects.filter(pk=synced.other.pk).delete()  # bypassing the receivers
    PendingChange.objects.update(due_at=timezone.now())
    report = dispatch_and_drain(task_queue)
    assert report["dropped"] == 1 and not Run.objects.exists()


def test_the_janitor_queues_a_lost_dispatch(synced, publish, conf, task_queue):
    from wagtail_bulk_translate.engine import janitor

    conf(SYNC_WINDOW_SECONDS=300)
    publish(synced.story, title="Its task was lost")
    task_queue.clear()  # a worker died with the delayed task
    PendingChange.objects.update(due_at=timezone.now() - timedelta(hours=1))

    assert janitor.any_run_active()
    with task_queue.capture_on_commit(execute=True):
        report = janitor.sweep()
    assert report.sync_dispatches == 1
    assert task_queue.plugin_names() == ["dispatch_sync_changes"]
    dispatch_and_drain(task_queue)
    assert Run.objects.get(origin="automatic").status == "succeeded"


def test_a_run_that_cannot_start_leaves_its_changes_pending(synced, publish, monkeypatch,
                                                            task_queue):  # fmt: skip
    from wagtail_bulk_translate.errors import RunConfigurationError

    def refuse(**kwargs):
        raise RunConfigurationError("The DeepL translator has no API key.")

    monkeypatch.setattr(dispatch, "start_run", refuse)
    publish(synced.story, title="Edited")
    report = task_queue.run_first("dispatch_sync_changes")
    assert report["waiting"] == 1
    assert "no API key" in PendingChange.objects.get().waiting_reason


def test_an_automatic_run_acts_with_the_publishing_editor_s_rights(synced, publish, task_queue):
    """The editor may edit and publish the English tree only: the French pages are theirs to
    write no more than by hand."""
    editor = f.editor("english", pages=[synced.home], page_actions=("add", "change", "publish"))
    publish(synced.story, title="Story zero, edited", user=editor)
    dispatch_and_drain(task_queue)

    run = Run.objects.get()
    assert (run.acting_user, run.acts_as_system) == (editor, False)
    assert set(run.units.values_list("error_code", flat=True)) == {"not_permitted"}
    assert (
        not Page.objects.filter(translation_key=synced.story.translation_key)
        .exclude(locale=synced.story.locale)
        .exists()
    )
