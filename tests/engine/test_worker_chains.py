"""Worker chains (``engine/worker.py``): when a chain goes on, waits, or ends.

A chain ends once nothing is left to claim or wait for, even while its run is still being
enumerated (the coordinator's next batch starts one), but never while units it could claim
are there: the hand-over is checked under the run row's lock.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from wagtail_bulk_translate.engine import worker
from wagtail_bulk_translate.engine.coordinator import coordinate
from wagtail_bulk_translate.engine.worker import WorkerOutcome
from wagtail_bulk_translate.models import Run, RunStatus, Unit

pytestmark = pytest.mark.django_db

PROCESS = "process_units"


@pytest.fixture
def enumerated(begin, task_queue, conf):
    """A running run of the site (fr), enumerated, one worker chain counted, no task queued."""
    conf(ENUMERATION_BATCH_SIZE=100)
    run = begin(locales=("fr",))
    while not coordinate(run.pk).done:
        pass
    Run.objects.filter(pk=run.pk).update(worker_chains=1)
    task_queue.clear()
    return run


def chains(run: Run) -> int:
    return Run.objects.values_list("worker_chains", flat=True).get(pk=run.pk)


def queued_workers(task_queue) -> list:
    return [r for r in task_queue.pending() if r.task.name == PROCESS]


def test_a_chain_that_finds_claimable_units_at_hand_over_keeps_going(enumerated):
    assert worker.end_chain_unless_claimable(enumerated.pk) is False
    assert chains(enumerated) == 1


def test_a_chain_with_nothing_claimable_ends_at_hand_over(enumerated):
    later = timezone.now() + timedelta(minutes=5)
    Unit.objects.filter(run=enumerated).update(available_after=later)
    assert worker.end_chain_unless_claimable(enumerated.pk) is True
    assert chains(enumerated) == 0


def test_a_chain_of_a_paused_run_ends_even_with_pending_units(enumerated):
    Run.objects.filter(pk=enumerated.pk).update(status=RunStatus.PAUSED)
    assert worker.end_chain_unless_claimable(enumerated.pk) is True
    assert chains(enumerated) == 0


def test_a_chain_of_a_run_still_enumerating_ends_instead_of_polling(
    enumerated, task_queue, monkeypatch
):
    # Every unit so far is done and more are still to come.
    Unit.objects.filter(run=enumerated).update(status="succeeded", finished_at=timezone.now())
    Run.objects.filter(pk=enumerated.pk).update(enumeration_done=False)
    monkeypatch.setattr(worker, "process_run", lambda run_id: WorkerOutcome(0, False))

    worker.work_and_continue(enumerated.pk)

    assert queued_workers(task_queue) == []  # no deferred poll
    assert chains(enumerated) == 0  # so the coordinator's next batch starts a chain


def test_units_committed_after_the_chain_last_looked_are_picked_up_at_once(
    enumerated, task_queue, monkeypatch
):
    # process_run found nothing; by the time it returns, the coordinator committed units.
    monkeypatch.setattr(worker, "process_run", lambda run_id: WorkerOutcome(0, False))

    worker.work_and_continue(enumerated.pk)

    [continuation] = queued_workers(task_queue)
    assert continuation.task.run_after is None or continuation.task.run_after <= timezone.now()
    assert chains(enumerated) == 1
