"""Publishing a synced source records one pending change per object, after commit, and a sync
bug never breaks the publish."""

from __future__ import annotations

import logging

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests import factories as f
from wagtail_bulk_translate.models import PendingChange, SyncEvent
from wagtail_bulk_translate.sync import pending

pytestmark = pytest.mark.django_db


def test_a_publish_records_a_change_due_when_the_window_closes(
    synced, publish, conf, publisher, task_queue
):
    conf(SYNC_WINDOW_SECONDS=300)
    publish(synced.story, title="Story zero, edited")

    change = PendingChange.objects.get()
    assert (change.object_id, change.changes, change.changed_by) == (
        str(synced.story.pk),
        1,
        publisher,
    )
    assert round((change.due_at - change.first_changed_at).total_seconds()) == 300
    assert task_queue.plugin_names() == ["dispatch_sync_changes"]


def test_ten_publishes_in_the_window_are_one_change_and_one_task(synced, publish, conf, task_queue):
    conf(SYNC_WINDOW_SECONDS=300)
    for i in range(10):
        publish(synced.story, title=f"Edit {i}")

    assert PendingChange.objects.get().changes == 10
    assert task_queue.plugin_names() == ["dispatch_sync_changes"]


def test_nothing_is_recorded_with_sync_off_or_outside_the_synced_tree(synced, publish, conf):
    conf(SYNC_ENABLED=False)
    publish(synced.story, title="Not synced")
    assert not PendingChange.objects.exists()

    conf(SYNC_ENABLED=True)
    elsewhere = f.article(f.index_page(f.home_page("Other site")), "Elsewhere")
    publish(elsewhere, title="Elsewhere, edited")
    assert not PendingChange.objects.exists()


def test_a_translation_published_by_a_run_is_not_a_change(synced, publish):
    french = synced.story.copy_for_translation(f.locales()["fr"], copy_parents=True)
    publish(french, title="Histoire")
    assert not PendingChange.objects.exists()


def test_a_subtree_configuration_leaves_the_rest_of_the_site_alone(synced, publish):
    synced.configuration.root_page = synced.news
    synced.configuration.save()
    publish(synced.home, title="Home, edited")
    publish(synced.story, title="Story, edited")
    assert list(PendingChange.objects.values_list("object_id", flat=True)) == [str(synced.story.pk)]


def test_saving_a_listed_snippet_model_records_a_change(synced, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        synced.category.save()
    assert not PendingChange.objects.exists()  # demo.Category is not listed

    synced.configuration.snippet_models = ["demo.Category"]
    synced.configuration.save()
    with django_capture_on_commit_callbacks(execute=True):
        synced.category.save()
    assert PendingChange.objects.get().object_id == str(synced.category.pk)


def test_a_failing_sync_never_breaks_the_publish(synced, publish, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("sync bug")

    monkeypatch.setattr(pending, "record_change", broken)
    with caplog.at_level(logging.ERROR):
        publish(synced.story, title="Published all the same")

    synced.story.refresh_from_db()
    assert synced.story.title == "Published all the same" and synced.story.live
    assert "sync bug" in caplog.text


def test_unpublishing_a_synced_page_is_reported_and_its_translations_left(
    synced, conf, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        synced.other.unpublish()
    event = SyncEvent.objects.get()
    assert (event.kind, event.object_repr) == ("unpublished", "Story 1")

    conf(SYNC_ON_SOURCE_REMOVED="ignore")
    with django_capture_on_commit_callbacks(execute=True):
        synced.story.unpublish()
    assert SyncEvent.objects.count() == 1


def test_deleting_a_synced_page_forgets_its_change_and_reports_it(
    synced, publish, django_capture_on_commit_callbacks
):
    publish(synced.other, title="About to go")
    with django_capture_on_commit_callbacks(execute=True):
        synced.other.delete()
    assert not PendingChange.objects.exists()
    assert SyncEvent.objects.get().kind == "deleted"


def test_a_publish_costs_at_most_five_more_queries_with_sync_on(
    synced, conf, publisher, django_capture_on_commit_callbacks
):
    def queries_of_a_publish(title):
        synced.story.title = title
        with (
            CaptureQueriesContext(connection) as queries,
            django_capture_on_commit_callbacks(execute=True),
        ):
            synced.story.save_revision(user=publisher).publish(user=publisher)
        return len(queries)

    conf(SYNC_ENABLED=False)
    queries_of_a_publish("warm-up")
    off = queries_of_a_publish("Sync off")
    conf(SYNC_ENABLED=True)
    first = queries_of_a_publish("Sync on, first of a burst")
    later = queries_of_a_publish("Sync on, later in the burst")
    assert first - off <= 5, (off, first)
    assert later - off <= 5, (off, later)


def test_publishing_a_snippet_with_drafts_records_one_change(synced, publish):
    synced.configuration.snippet_models = ["demo.FooterText"]
    synced.configuration.save()
    footer = f.footer()
    PendingChange.objects.all().delete()
    publish(footer)
    assert PendingChange.objects.get().changes == 1


def test_moving_a_page_out_of_the_synced_tree_is_reported(
    synced, publish, django_capture_on_commit_callbacks
):
    elsewhere = f.home_page("Other site")
    with django_capture_on_commit_callbacks(execute=True):
        synced.other.move(elsewhere, pos="last-child")
    assert SyncEvent.objects.get().kind == "moved"
