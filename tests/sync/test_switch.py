"""The switches and the automatic runs in progress: pausing a site pauses the runs that serve
only paused sites; resuming one switch does not resume what the other still holds."""

from __future__ import annotations

import pytest
from wagtail.models import Locale, Site

from wagtail_bulk_translate.engine.pauses import pause_run
from wagtail_bulk_translate.models import Run, SyncConfiguration
from wagtail_bulk_translate.sync import switch

pytestmark = pytest.mark.django_db


@pytest.fixture
def automatic_run(synced, publish, task_queue):
    """An automatic run of the synced site, started and enumerated, not worked on yet."""
    publish(synced.story, title="Edited")
    task_queue.run_first("dispatch_sync_changes")
    task_queue.run_first("coordinate_run")
    run = Run.objects.get()
    assert list(run.sync_configurations.all()) == [synced.configuration]
    return run


def status(run: Run) -> str:
    run.refresh_from_db()
    return run.status


def test_pausing_a_site_pauses_its_automatic_run_and_resuming_finishes_it(
    synced, automatic_run, task_queue
):
    switch.set_site_paused(synced.configuration.pk, True)
    assert status(automatic_run) == "paused"
    assert automatic_run.error_message == switch.SITE_PAUSED_RUN_MESSAGE
    task_queue.drain()
    assert status(automatic_run) == "paused"  # no worker took it up meanwhile

    with task_queue.capture_on_commit(execute=True):
        switch.set_site_paused(synced.configuration.pk, False)
    task_queue.drain()
    assert status(automatic_run) == "succeeded"


def test_a_run_also_serving_a_site_still_syncing_goes_on(synced, automatic_run, site):
    other = SyncConfiguration.objects.create(
        site=Site.objects.create(hostname="other.test", root_page=site.home, port=81)
    )
    other.target_locales.set(Locale.objects.filter(language_code="fr"))
    other.runs.add(automatic_run)

    switch.set_site_paused(synced.configuration.pk, True)
    assert status(automatic_run) == "running"
    switch.set_site_paused(other.pk, True)
    assert status(automatic_run) == "paused"


def test_resuming_all_leaves_a_run_whose_site_is_paused_held_by_its_site(
    synced, automatic_run, task_queue
):
    switch.pause_all()
    switch.set_site_paused(synced.configuration.pk, True)

    assert switch.resume_all() == 0
    assert status(automatic_run) == "paused"
    assert automatic_run.error_message == switch.SITE_PAUSED_RUN_MESSAGE

    with task_queue.capture_on_commit(execute=True):
        switch.set_site_paused(synced.configuration.pk, False)
    task_queue.drain()
    assert status(automatic_run) == "succeeded"


def test_resuming_a_site_while_all_is_paused_waits_for_the_global_switch(
    synced, automatic_run, task_queue
):
    switch.set_site_paused(synced.configuration.pk, True)
    switch.pause_all()
    switch.set_site_paused(synced.configuration.pk, False)
    assert status(automatic_run) == "paused"

    with task_queue.capture_on_commit(execute=True):
        assert switch.resume_all() == 1
    task_queue.drain()
    assert status(automatic_run) == "succeeded"


def test_a_run_an_editor_paused_is_left_alone(synced, automatic_run):
    pause_run(automatic_run.pk, message="Paused by Edith.")
    switch.set_site_paused(synced.configuration.pk, True)
    switch.set_site_paused(synced.configuration.pk, False)
    assert status(automatic_run) == "paused"
    assert automatic_run.error_message == "Paused by Edith."
