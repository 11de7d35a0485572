"""A run whose coordinator keeps raising ends ``failed`` with the error, after a bounded number of
attempts, instead of sitting "running" forever; until then nobody is told to start a worker."""

from __future__ import annotations

import json
import logging
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import OperationalError
from django.urls import reverse

from tests import factories as f
from tests.factories import subtree
from tests.task_queue import UNREACHABLE_BROKER
from wagtail_bulk_translate import tasks
from wagtail_bulk_translate.engine import coordinator
from wagtail_bulk_translate.models import Run, RunStatus, UnitStatus
from wagtail_bulk_translate.runs.liveness import seconds_without_worker, task_failure_note

pytestmark = pytest.mark.django_db

ERROR = "Expression tree is too large (maximum depth 1000)"


@pytest.fixture
def site():
    home = f.home_page("Home")
    f.article(f.index_page(home, "News"), "Story")
    return subtree(home)


@pytest.fixture
def broken_enumeration(monkeypatch):
    def commit_batch(*args):
        raise OperationalError(ERROR)

    monkeypatch.setattr(coordinator, "commit_batch", commit_batch)


def tick(run: Run) -> None:
    with pytest.raises(OperationalError):
        tasks.coordinate_run.func(run.pk)
    run.refresh_from_db()


def status_text(run: Run) -> str:
    out = StringIO()
    call_command("bulk_translate", "status", str(run.pk), stdout=out)
    return out.getvalue()


def test_a_failing_coordinator_is_retried_then_fails_the_run_with_its_error(
    site, start, task_queue, broken_enumeration, settings, caplog
):
    settings.WAGTAIL_BULK_TRANSLATE = {"TASK_MAX_ATTEMPTS": 3}
    run = start(scope=site, source_locale="en", target_locales=["fr"])
    task_queue.clear()

    with caplog.at_level(logging.ERROR):
        tick(run)
    assert run.status in RunStatus.in_progress
    assert run.coordinator_token is None  # the lease is given up for the janitor's restart
    note = task_failure_note(run)
    assert "1 of 3" in note and f"OperationalError: {ERROR}" in note
    assert seconds_without_worker(run) is None  # a worker is alive: its task failed
    assert "No worker" not in status_text(run)
    assert "Traceback" in caplog.text or caplog.records[-1].exc_info

    tick(run)
    tick(run)

    assert run.status == RunStatus.FAILED
    assert run.finished_at is not None
    assert f"failed 3 times in a row: OperationalError: {ERROR}" in run.error_message
    assert task_failure_note(run) == ""
    assert not run.units.filter(status__in=UnitStatus.in_flight).exists()
    text = status_text(run)
    assert "failed" in text and ERROR in text
    out = StringIO()
    call_command("bulk_translate", "status", str(run.pk), "--json", stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["status"] == "failed" and ERROR in summary["error_message"]


def test_the_run_page_shows_the_failure_and_no_worker_warning(
    site, start, task_queue, broken_enumeration, admin_client
):
    run = start(scope=site, source_locale="en", target_locales=["fr"])
    tick(run)

    status = admin_client.get(reverse("wagtail_bulk_translate:status", args=[run.pk])).json()

    assert status["no_worker"] is False
    assert ERROR in status["task_failing"]


def test_a_success_clears_the_count(site, start, task_queue, monkeypatch):
    run = start(scope=site, source_locale="en", target_locales=["fr"])
    original = coordinator.commit_batch
    monkeypatch.setattr(coordinator, "commit_batch", lambda *args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        tasks.coordinate_run.func(run.pk)
    run.refresh_from_db()
    assert run.task_failures["coordinate_run"]["count"] == 1

    monkeypatch.setattr(coordinator, "commit_batch", original)
    tasks.coordinate_run.func(run.pk)

    run.refresh_from_db()
    assert run.task_failures == {}
    assert run.enumeration_done


def test_a_lost_database_connection_does_not_count(site, start, task_queue, monkeypatch):
    run = start(scope=site, source_locale="en", target_locales=["fr"])

    def commit_batch(*args):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(coordinator, "commit_batch", commit_batch)
    tick(run)

    assert run.status in RunStatus.in_progress
    assert run.task_failures == {}  # the janitor restarts it once its lease lapses


def test_a_task_queue_that_cannot_be_reached_does_not_count(
    site, start, task_queue, settings, monkeypatch
):
    import redis

    run = start(scope=site, source_locale="en", target_locales=["fr"])
    settings.TASKS = {"default": {"BACKEND": UNREACHABLE_BROKER}}
    # Saving an object queues Wagtail's index tasks: with the broker down, the save raises.
    monkeypatch.setattr(coordinator, "commit_batch", lambda *args: tasks.process_units.enqueue(1))

    with pytest.raises(redis.exceptions.ConnectionError):
        tasks.coordinate_run.func(run.pk)

    run.refresh_from_db()
    assert run.status in RunStatus.in_progress
    assert run.task_failures == {}
