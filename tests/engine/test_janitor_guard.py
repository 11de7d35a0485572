"""The janitor's guards: a janitor killed between taking its lease and queuing its next sweep,
while every worker chain is dead too, is taken over without anyone reading a run's status.

Whoever takes the janitor's lease while a run is active queues a ``janitor_guard`` task with it,
due one interval after that lease will have lapsed. A live chain's guards find the lease renewed
and exit; a dead chain's guard takes over.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from wagtail_bulk_translate import api
from wagtail_bulk_translate.engine import claims, janitor
from wagtail_bulk_translate.models import JanitorLease, Run, RunStatus, Unit

pytestmark = pytest.mark.django_db

INTERVAL = 60


@pytest.fixture(autouse=True)
def janitor_on(conf):
    conf(
        JANITOR_INTERVAL_SECONDS=INTERVAL,
        STALL_SECONDS=120,
        UNITS_PER_CLAIM=1,
        MAX_UNITS_PER_CLAIM=1,
    )


def long_ago():
    return timezone.now() - timedelta(hours=1)


def queued(task_queue, name: str) -> list:
    return [r for r in task_queue.backend.results if r.task.name == name]


def lease() -> JanitorLease:
    return JanitorLease.objects.get(pk=1)


def kill_janitor_after_its_lease(task_queue, django_capture_on_commit_callbacks) -> str:
    """The janitor's task renews its chain's lease and is SIGKILLed before it queues its next
    sweep; the worker chains died before it (their tasks are gone, their claims' leases lapsed).
    Returns the dead chain's token."""
    task_queue.clear()
    chain = JanitorLease.objects.filter(pk=1).values_list("token", flat=True).first()
    with django_capture_on_commit_callbacks(execute=True):
        token = janitor.acquire_janitor_lease(chain and str(chain), guarded=True)
    assert token is not None
    assert [r.task.name for r in task_queue.backend.results] == ["janitor_guard"]
    return token


def let_the_lease_lapse() -> None:
    JanitorLease.objects.filter(pk=1).update(expires_at=long_ago())


def test_the_guard_of_a_killed_janitor_takes_over_and_the_run_finishes(
    site, begin, task_queue, django_capture_on_commit_callbacks
):
    run = begin()
    task_queue.run_first("coordinate_run")
    _token, held = claims.claim_units(run.pk, 1)  # a worker dies holding a claim
    Unit.objects.filter(pk__in=[u.pk for u in held]).update(lease_expires_at=long_ago())
    Run.objects.filter(pk=run.pk).update(heartbeat_at=long_ago())
    dead_token = kill_janitor_after_its_lease(task_queue, django_capture_on_commit_callbacks)
    let_the_lease_lapse()

    report = task_queue.run_first("janitor_guard")

    assert report["ran"] is True
    assert report["workers_queued"] >= 1
    assert report["leases_returned"] == len(held)
    assert str(lease().token) != dead_token
    assert [r.args for r in queued(task_queue, "janitor_sweep")] == [[str(lease().token)]]
    assert len(queued(task_queue, "janitor_guard")) == 1  # the new chain's own guard
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def test_a_guard_is_due_one_interval_after_the_lease_it_was_queued_with_lapses(
    site, begin, task_queue, django_capture_on_commit_callbacks
):
    begin()
    kill_janitor_after_its_lease(task_queue, django_capture_on_commit_callbacks)

    (guard,) = queued(task_queue, "janitor_guard")

    # (The lease's expiry is read from the database clock a few milliseconds later.)
    slack = timedelta(seconds=1)
    assert guard.task.run_after >= lease().expires_at + timedelta(seconds=INTERVAL) - slack


def test_a_live_chain_s_guards_exit_and_do_not_multiply(site, begin, task_queue):
    begin()
    for _ in range(3):  # the chain sweeps three times: a guard per lease it takes
        assert task_queue.run_first("janitor_sweep")["ran"] is True
    assert len(queued(task_queue, "janitor_guard")) == 3
    token = lease().token

    while queued(task_queue, "janitor_guard"):
        assert task_queue.run_first("janitor_guard") == {"ran": False}

    assert lease().token == token
    assert len(queued(task_queue, "janitor_sweep")) == 1  # only the chain's next sweep


def test_a_guard_does_nothing_once_no_run_is_active(
    site, begin, task_queue, django_capture_on_commit_callbacks
):
    run = begin()
    kill_janitor_after_its_lease(task_queue, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        api.cancel_run(run.pk)
    task_queue.clear()
    let_the_lease_lapse()
    JanitorLease.objects.filter(pk=1).update(token=None, expires_at=None)

    assert janitor.take_over_if_dead() == {"ran": False}
    assert task_queue.plugin_names() == []
    assert lease().token is None


def test_a_janitor_re_armed_by_a_worker_task_is_guarded_too(
    site, begin, task_queue, django_capture_on_commit_callbacks
):
    run = begin()
    task_queue.run_first("coordinate_run")
    kill_janitor_after_its_lease(task_queue, django_capture_on_commit_callbacks)
    task_queue.clear()  # the dead chain's guard is lost too (it is not, on a real backend)
    let_the_lease_lapse()
    Run.objects.filter(pk=run.pk).update(heartbeat_at=long_ago())

    with django_capture_on_commit_callbacks(execute=True):
        assert janitor.rearm_if_lapsed() is True

    assert len(queued(task_queue, "janitor_sweep")) == 1
    assert len(queued(task_queue, "janitor_guard")) == 1
