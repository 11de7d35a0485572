"""A backend that runs each task at once, inside the call that enqueues it (ImmediateBackend).

Such a backend cannot defer a task: a worker task with nothing claimable right now that
re-queued itself would run again at once, in a loop, instead of waiting.
"""

from __future__ import annotations

import logging

import pytest

from tests import factories as f
from wagtail_bulk_translate import tasks
from wagtail_bulk_translate.api import start_run
from wagtail_bulk_translate.compat import DummyBackend
from wagtail_bulk_translate.models import Run, RunStatus, UnitStatus

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

IMMEDIATE_BACKEND = DummyBackend.__module__.replace("dummy", "immediate") + ".ImmediateBackend"


@pytest.fixture
def immediate(settings, recording_translator):
    settings.TASKS = {"default": {"BACKEND": IMMEDIATE_BACKEND, "QUEUES": []}}
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "UNITS_PER_CLAIM": 10,
        "ENUMERATION_BATCH_SIZE": 7,
    }


@pytest.fixture
def task_runs(monkeypatch):
    """How many times the worker task ran."""
    counts = {"process_units": 0}
    original = tasks.worker.work_and_continue

    def counted(run_id):
        counts["process_units"] += 1
        return original(run_id)

    monkeypatch.setattr(tasks.worker, "work_and_continue", counted)
    return counts


def test_worker_task_with_nothing_claimable_does_not_requeue_itself(immediate, task_runs):
    # A real transaction per request, as in production: the run's tasks run when start_run's
    # transaction commits, and each task's own tasks when its transactions commit.
    f.locales()  # a transactional test before this one may have flushed them
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    for i in range(33):
        f.article(news, f"Story {i}")
    run = start_run(
        scope={"pages": [{"id": home.pk, "descendants": True}]},
        source_locale="en",
        target_locales=["fr", "de", "es"],
        publish_policy="publish",
    )
    run = Run.objects.get(pk=run.pk)
    assert run.status == RunStatus.SUCCEEDED
    assert run.unit_counts()[UnitStatus.SUCCEEDED] == 105
    # One task per claim of 10 units, plus a few chains that find nothing left to claim.
    assert task_runs["process_units"] <= 105 / 10 + 10


def test_a_successful_in_process_run_logs_no_traceback(immediate, caplog):
    # Django's task logging attaches sys.exc_info() to "task finished" lines: a task run
    # inline while an exception is being handled (a target created in an `except` block)
    # printed that exception's traceback although nothing failed.
    caplog.set_level(logging.INFO)
    f.locales()
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    f.article(news, "Story")

    run = start_run(
        scope={"pages": [{"id": home.pk, "descendants": True}]},
        source_locale="en",
        target_locales=["fr"],
        publish_policy="publish",
    )

    assert Run.objects.get(pk=run.pk).status == RunStatus.SUCCEEDED
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert not tracebacks, [(r.name, r.getMessage(), r.exc_info[1]) for r in tracebacks]
