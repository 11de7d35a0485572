"""A dead janitor chain is re-armed by whoever notices: worker tasks, coordinator ticks, control
actions and status reads.

A chain dies when its task is killed before it queued its successor (django-tasks' database
backend then leaves it RUNNING forever): its lease lapses while a run is still active. The
re-arm takes the lease itself (a compare-and-set) and hands the token to one new sweep, so
there is never more than one live chain.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from wagtail_bulk_translate import api
from wagtail_bulk_translate.engine import janitor
from wagtail_bulk_translate.models import JanitorLease, Run, RunStatus

pytestmark = pytest.mark.django_db

DEAD_TOKEN = "11111111-1111-1111-1111-111111111111"


@pytest.fixture(autouse=True)
def janitor_on(conf):
    conf(JANITOR_INTERVAL_SECONDS=60)


@pytest.fixture
def run(site, begin, task_queue, conf):
    """A running run whose janitor chain died: its lease lapsed, none of its tasks is queued."""
    run = begin()
    # Worker tasks get no time to claim anything (a budget settings validation refuses at
    # start, hence set after it): the run stays active after them.
    conf(WORKER_TIME_BUDGET_SECONDS=0)
    task_queue.run_first("janitor_sweep")  # the chain takes its lease...
    kill_janitor_chain(task_queue)  # ...and dies with its successor
    return run


def kill_janitor_chain(task_queue) -> None:
    task_queue.backend.results[:] = [
        r for r in task_queue.backend.results if r.task.name != "janitor_sweep"
    ]
    JanitorLease.objects.update_or_create(
        pk=1, defaults={"token": DEAD_TOKEN, "expires_at": timezone.now() - timedelta(hours=1)}
    )


def janitor_tasks(task_queue) -> list[tuple]:
    """The arguments of each queued janitor sweep (its lease token)."""
    return [r.args for r in task_queue.backend.results if r.task.name == "janitor_sweep"]


def lease_token() -> str | None:
    token = JanitorLease.objects.get().token
    return str(token) if token else None


def test_a_worker_task_rearms_a_dead_janitor_with_one_leased_chain(run, task_queue):
    task_queue.run_first("coordinate_run")
    kill_janitor_chain(task_queue)  # again: the coordinator's tick re-armed it

    task_queue.run_first("process_units")

    assert janitor_tasks(task_queue) == [[lease_token()]]
    assert lease_token() != DEAD_TOKEN
    assert task_queue.run_first("janitor_sweep")["ran"] is True
    assert len(janitor_tasks(task_queue)) == 1  # the new chain goes on


def test_a_late_task_of_the_dead_chain_exits(run, task_queue):
    task_queue.run_first("coordinate_run")

    assert janitor.sweep_and_continue(DEAD_TOKEN) == {"ran": False}
    assert len(janitor_tasks(task_queue)) == 1


def test_many_callers_at_once_rearm_it_once(run, task_queue, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        rearmed = [janitor.rearm_if_lapsed() for _ in range(3)]

    assert rearmed == [True, False, False]
    assert len(janitor_tasks(task_queue)) == 1


@pytest.mark.parametrize(
    "notice",
    [
        pytest.param(lambda run: "coordinate_run", id="coordinator tick"),
        pytest.param(lambda run: api.run_summary(run), id="status read"),
        pytest.param(lambda run: api.cancel_run(other_run(run)), id="control action"),
    ],
)
def test_coordinator_ticks_status_reads_and_controls_rearm_it(
    run, task_queue, notice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        task = notice(run)
    if isinstance(task, str):  # a task: run it as a worker would
        task_queue.run_first(task)

    assert janitor_tasks(task_queue) == [[lease_token()]]


def other_run(run: Run) -> int:
    other = Run.objects.create(
        source_locale_id=run.source_locale_id, translator_class=run.translator_class
    )
    return other.pk


def test_a_live_chain_is_left_alone(run, task_queue, django_capture_on_commit_callbacks):
    JanitorLease.objects.filter(pk=1).update(expires_at=timezone.now() + timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        assert janitor.rearm_if_lapsed() is False
    assert janitor_tasks(task_queue) == []
    assert lease_token() == DEAD_TOKEN


def test_no_janitor_is_rearmed_without_an_active_run(
    run, task_queue, django_capture_on_commit_callbacks
):
    Run.objects.update(status=RunStatus.SUCCEEDED)

    with django_capture_on_commit_callbacks(execute=True):
        assert janitor.rearm_if_lapsed() is False
    assert janitor_tasks(task_queue) == []


def test_no_janitor_is_rearmed_when_it_is_disabled(
    run, task_queue, conf, django_capture_on_commit_callbacks
):
    conf(JANITOR_INTERVAL_SECONDS=None)

    with django_capture_on_commit_callbacks(execute=True):
        assert janitor.rearm_if_lapsed() is False
    assert janitor_tasks(task_queue) == []
