"""A stalled run gets only the worker chains it is missing, however long its claims take.

A run is quiet when nobody claimed its units for STALL_SECONDS; on a loaded machine that
happens with live chains too (a long claim, or chains queued behind other tasks). The janitor
counts the live ones (a claim with a live lease; a ready task in the database backend's queue)
and queues the rest, up to what the claimable units need.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from wagtail_bulk_translate import schedule
from wagtail_bulk_translate.engine import claims, janitor
from wagtail_bulk_translate.models import Run, Unit

pytestmark = pytest.mark.django_db

DATABASE_BACKEND = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}}


@pytest.fixture(autouse=True)
def janitor_settings(conf):
    conf(STALL_SECONDS=120, UNITS_PER_CLAIM=1, MAX_UNITS_PER_CLAIM=1, WORKER_CONCURRENCY=4)


@pytest.fixture
def quiet_run(site, begin, task_queue):
    """A running run with claimable units whose workers' tasks are all gone."""
    run = begin()
    task_queue.run_first("coordinate_run")
    task_queue.clear()
    return run


@pytest.fixture
def database_backend(task_queue, settings):
    """Tasks queued from here on go to django-tasks-db's queue (rows in the test database)."""
    dummy = settings.TASKS
    settings.TASKS = DATABASE_BACKEND
    yield
    settings.TASKS = dummy  # before the task_queue fixture clears its queue


@pytest.fixture
def sweep(django_capture_on_commit_callbacks):
    def _sweep(run: Run) -> int:
        """One sweep STALL_SECONDS after the run's last claim: the worker chains it queued."""
        Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
        with django_capture_on_commit_callbacks(execute=True):
            return janitor.restart_stalled_workers(run.pk)

    return _sweep


def claimable(run: Run) -> int:
    return Unit.objects.filter(run=run).claimable().count()


def test_a_run_whose_chains_all_died_gets_a_full_set(quiet_run, task_queue, sweep):
    expected = schedule.workers_needed(claimable(quiet_run))

    assert sweep(quiet_run) == expected == 4
    assert task_queue.plugin_names() == ["process_units"] * expected


def test_chains_holding_live_claims_count(quiet_run, task_queue, sweep):
    for _ in range(2):  # two slow claims, their workers alive (leases renewed)
        claims.claim_units(quiet_run.pk, 1)
    expected = schedule.workers_needed(claimable(quiet_run)) - 2

    assert sweep(quiet_run) == expected == 2
    assert task_queue.plugin_names() == ["process_units"] * expected


def test_the_runs_count_of_chains_becomes_the_live_ones_and_those_queued(quiet_run, sweep):
    """Chains of killed workers never count themselves down; restarted ones never counted up."""
    Run.objects.filter(pk=quiet_run.pk).update(worker_chains=7)
    claims.claim_units(quiet_run.pk, 1)

    queued = sweep(quiet_run)

    quiet_run.refresh_from_db()
    assert quiet_run.worker_chains == queued + 1 == schedule.workers_needed(claimable(quiet_run))


def test_claims_whose_lease_lapsed_do_not_count(quiet_run, task_queue, sweep):
    _token, held = claims.claim_units(quiet_run.pk, 1)
    Unit.objects.filter(pk__in=[u.pk for u in held]).update(
        lease_expires_at=timezone.now() - timedelta(hours=1)
    )

    assert sweep(quiet_run) == 4


def test_chains_queued_behind_other_tasks_count_and_sweeps_do_not_pile_up(
    quiet_run, database_backend, sweep
):
    """Each sweep a STALL_SECONDS apart, nothing claimed meanwhile (the workers are busy with
    other tasks): the first queues the missing chains, the next ones nothing."""
    queued = [sweep(quiet_run) for _ in range(5)]

    assert queued == [4, 0, 0, 0, 0]
    assert schedule.queued_tasks("process_units", quiet_run.pk) == 4


def test_a_deferred_chain_is_not_counted_before_it_is_due(quiet_run, database_backend, sweep):
    schedule.continue_worker(quiet_run.pk, when=timezone.now() + timedelta(hours=1))

    assert schedule.queued_tasks("process_units", quiet_run.pk) == 0
    assert sweep(quiet_run) == 4


def test_tasks_of_another_run_do_not_count(quiet_run, database_backend, sweep):
    schedule.start_worker_chains(quiet_run.pk + 1, 3)

    assert sweep(quiet_run) == 4


def test_a_backend_that_cannot_list_its_queue_counts_live_claims_only(quiet_run, task_queue):
    schedule.start_worker_chains(quiet_run.pk, 2)

    assert schedule.queued_tasks("process_units", quiet_run.pk) is None
