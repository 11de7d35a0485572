"""What stays queued on django-tasks-db's database backend: nothing, once a run is over."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django_tasks_db.models import DBTaskResult

from tests.task_queue import DUMMY_BACKEND
from wagtail_bulk_translate import schedule
from wagtail_bulk_translate.api import resume_run
from wagtail_bulk_translate.errors import QuotaExceededError
from wagtail_bulk_translate.models import Run, RunStatus

pytestmark = pytest.mark.django_db

DB_BACKEND = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["default", "bulk_translate"],
    }
}


@pytest.fixture
def db_queue(settings, task_queue, django_capture_on_commit_callbacks, conf):
    """The database backend's table as the queue, its ready tasks run in-process in order."""
    conf(RETRY_BACKOFF_SECONDS=0, UNITS_PER_CLAIM=10)

    def drain(max_tasks: int = 300) -> None:
        for _ in range(max_tasks):
            row = DBTaskResult.objects.ready().order_by("enqueued_at", "pk").first()
            if row is None:
                return
            row.claim("test")
            if row.task_path.startswith("wagtail_bulk_translate."):
                with django_capture_on_commit_callbacks(execute=True):
                    row.task.func(*row.args_kwargs["args"], **row.args_kwargs["kwargs"])
            row.set_successful(None)
        raise AssertionError("the queue did not settle")

    def switch() -> None:
        settings.TASKS = DB_BACKEND

    drain.switch = switch
    yield drain
    settings.TASKS = {"default": {"BACKEND": DUMMY_BACKEND, "QUEUES": []}}


def queued_for(run: Run) -> list[str]:
    """The plugin's tasks of ``run`` not started yet, deferred ones included."""
    rows = DBTaskResult.objects.filter(status="READY", task_path__startswith="wagtail_bulk")
    return sorted(
        row.task_path.rsplit(".", 1)[-1] for row in rows if row.args_kwargs["args"][:1] == [run.pk]
    )


def test_nothing_stays_queued_after_quota_pauses_and_resumes(
    site, begin, recording_translator, db_queue, django_capture_on_commit_callbacks
):
    db_queue.switch()
    quota = {"pauses": 2}

    def over_quota(text):
        if quota["pauses"]:
            quota["pauses"] -= 1
            raise QuotaExceededError()
        return "Histoire 0"

    recording_translator.overrides["Story 0"] = over_quota
    run = begin(locales=["fr"])
    for _pause in range(2):
        db_queue()
        assert Run.objects.get(pk=run.pk).status == RunStatus.PAUSED
        # The retry waits QUOTA_RETRY_SECONDS; the editor resumes before it comes.
        assert "retry_after_quota" in queued_for(run)
        with django_capture_on_commit_callbacks(execute=True):
            assert resume_run(run.pk)
    db_queue()

    assert Run.objects.get(pk=run.pk).status == RunStatus.SUCCEEDED
    assert queued_for(run) == []


def test_a_task_queued_after_the_run_ended_is_kept(site, begin, db_queue):
    db_queue.switch()
    run = begin(locales=["fr"])
    db_queue()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    # A chain's wake-up queued while the run was still going, due after it ended.
    schedule.continue_worker(run.pk, when=schedule.in_seconds(600))
    DBTaskResult.objects.filter(status="READY").update(
        enqueued_at=run.finished_at - timedelta(seconds=1)
    )
    assert queued_for(run) == ["process_units"]

    assert schedule.discard_finished_runs_tasks() == 1
    assert queued_for(run) == []

    # Reopened (a retry of failed units): what it queues now is not a leftover.
    Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    schedule.continue_worker(run.pk)
    assert schedule.discard_finished_runs_tasks() == 0
    assert queued_for(run) == ["process_units"]
