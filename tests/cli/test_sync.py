"""``bulk_translate sync status|pause|resume``, in text and with --json."""

from __future__ import annotations

import json

import pytest

from wagtail_bulk_translate.models import PendingChange, Run, SyncConfiguration

pytestmark = pytest.mark.django_db


def test_status_says_what_is_synced_and_what_waits(synced, publish, conf, run_command):
    conf(SYNC_WINDOW_SECONDS=300)
    publish(synced.story, title="Waiting")
    out, _err = run_command("sync", "status")
    assert "Automatic sync is on" in out
    assert "synced.test (on): “Home” tree → de, fr" in out
    assert "1 change(s) waiting." in out
    assert f"  Waiting (page {synced.story.pk}, 1 publish(es))" in out  # named by its title

    document = json.loads(run_command("sync", "status", "--json")[0])
    assert document["paused"] is False and document["pending_total"] == 1
    assert document["configurations"][0]["locales"] == ["de", "fr"]


def test_pause_then_resume_catches_up(synced, publish, run_command, task_queue):
    out, _err = run_command("sync", "pause")
    assert "Paused all automatic translation" in out
    publish(synced.story, title="While paused")
    task_queue.drain()
    assert not Run.objects.exists() and PendingChange.objects.count() == 1

    _out, err = run_command("sync", "resume", "--json")
    assert "Resumed automatic translation" in err
    task_queue.drain()
    assert Run.objects.get().origin == "automatic"
    assert not PendingChange.objects.exists()


def test_a_site_is_paused_by_hostname(synced, run_command):
    run_command("sync", "pause", "--site", "synced.test")
    assert SyncConfiguration.objects.get().paused
    out, _err = run_command("sync", "status")
    assert "synced.test (paused)" in out


def test_an_unknown_site_is_refused(synced, bad_arguments):
    message = bad_arguments("sync", "pause", "--site", "nowhere.test")
    assert "No automatic sync is configured for the site 'nowhere.test'" in message


def test_status_with_sync_off_says_how_to_switch_it_on(db, run_command):
    out, _err = run_command("sync", "status")
    assert 'SYNC_ENABLED"' in out
