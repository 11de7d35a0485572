"""The janitor: what crashed workers and lost tasks leave behind is repaired by a sweep.

A crashed worker is simulated by claiming units with ``claims.claim_units`` and never finishing
them, then expiring their lease; a lost task by dropping it from the ``task_queue``.
"""

from __future__ import annotations

import json
import types
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tests.lookups import counts, translated
from wagtail_bulk_translate import api as controls
from wagtail_bulk_translate import schedule
from wagtail_bulk_translate.engine import claims, coordinator, janitor
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import (
    LEASE_EXPIRED_MESSAGE,
    JanitorLease,
    Run,
    RunStatus,
    Unit,
    UnitStatus,
)

pytestmark = pytest.mark.django_db

LOCALES = ["fr", "de"]
STALL_SECONDS = 120


def long_ago():
    # Far enough back for the database clock too: on PostgreSQL, NOW() is the start of the
    # test's transaction, which can be seconds before this line runs.
    return timezone.now() - timedelta(hours=1)


# --- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture(autouse=True)
def janitor_settings(conf):
    conf(STALL_SECONDS=STALL_SECONDS, UNITS_PER_CLAIM=1, MAX_UNITS_PER_CLAIM=1)


@pytest.fixture
def sweep(django_capture_on_commit_callbacks):
    """One janitor sweep; the tasks it queues on commit land in the task queue."""

    def _sweep() -> janitor.SweepReport:
        with django_capture_on_commit_callbacks(execute=True):
            return janitor.sweep()

    return _sweep


def crash_worker(run: Run, objects: int = 1) -> list[Unit]:
    """A worker claims units, is SIGKILLed, and time passes until its lease runs out."""
    _token, held = claims.claim_units(run.pk, objects)
    assert held
    expire([u.pk for u in held])
    Run.objects.filter(pk=run.pk).update(heartbeat_at=long_ago())
    return held


def crash_worker_on(run: Run, obj) -> list[Unit]:
    """Like crash_worker, for the units of one object (the claim would take the first ones)."""
    others = list(
        Unit.objects.filter(run=run, status=UnitStatus.PENDING)
        .exclude(object_key=obj.translation_key)
        .values_list("pk", flat=True)
    )
    Unit.objects.filter(pk__in=others).update(available_after=timezone.now() + timedelta(days=1))
    held = crash_worker(run)
    Unit.objects.filter(pk__in=others).update(available_after=None)
    assert {u.object_key for u in held} == {obj.translation_key}
    return held


def expire(unit_ids) -> None:
    Unit.objects.filter(pk__in=unit_ids).update(lease_expires_at=long_ago())


def refreshed(units: list[Unit]) -> list[Unit]:
    return list(Unit.objects.filter(pk__in=[u.pk for u in units]).order_by("pk"))


# --- expired unit leases -----------------------------------------------------------------------


def test_expired_lease_goes_back_to_pending_and_is_processed(
    site, begin, task_queue, sweep, recording_translator
):
    run = begin()
    task_queue.run_first("coordinate_run")
    task_queue.clear()  # the worker tasks died with the worker
    held = crash_worker(run)
    assert {u.object_key for u in held} == {site.home.translation_key}

    report = sweep()

    assert report.leases_returned == 2
    assert report.leases_failed == 0
    for unit in refreshed(held):
        assert unit.status == UnitStatus.PENDING
        assert unit.lease_token is None
        assert unit.lease_expires_at is None
        assert unit.attempts == 0  # a shared worker's death is not the fault of either unit
        assert unit.claim_limit == 1  # each comes back in a claim of its own
    assert "process_units" in task_queue.names()  # the stalled run gets workers again
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert counts(run) == {UnitStatus.SUCCEEDED: 8}
    assert [u.attempts for u in refreshed(held)] == [1, 1]
    assert translated(site.home, "fr") and translated(site.home, "de")


def test_a_live_lease_is_left_alone(site, begin, task_queue, sweep):
    run = begin()
    task_queue.run_first("coordinate_run")
    _token, held = claims.claim_units(run.pk, 1)  # a slow worker, still alive

    report = sweep()

    assert report.leases_returned == report.leases_failed == 0
    assert {u.status for u in refreshed(held)} == {UnitStatus.RUNNING}


def test_a_unit_whose_worker_died_while_it_was_alone_fails_once_its_attempts_are_spent(
    site, begin, task_queue, sweep, conf
):
    conf(MAX_ATTEMPTS=1)
    run = begin()
    task_queue.run_first("coordinate_run")
    held = crash_worker_on(run, site.stories[1])  # two units (fr, de) in one claim
    assert sweep().leases_failed == 0  # shared: both come back, each alone
    alone = crash_worker_on(run, site.stories[1])
    assert len(alone) == 1

    report = sweep()

    assert report.leases_failed == 1
    assert report.leases_returned == 0
    for unit in refreshed(alone):
        assert unit.status == UnitStatus.FAILED
        assert unit.error_code == ErrorCode.LEASE_EXPIRED
        assert unit.error_message == LEASE_EXPIRED_MESSAGE
        assert "processed alone" in unit.error_message
        assert unit.lease_token is None
        assert unit.finished_at is not None
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert counts(run) == {UnitStatus.SUCCEEDED: 7, UnitStatus.FAILED: 1}
    assert {u.pk for u in held} > {u.pk for u in alone}


def test_units_of_a_cancelled_run_are_cancelled_not_resurrected(
    site, begin, task_queue, sweep, recording_translator
):
    run = begin()
    task_queue.run_first("coordinate_run")
    _token, held = claims.claim_units(run.pk, 1)
    controls.cancel_run(run.pk)
    expire([u.pk for u in held])  # the worker died after the cancel

    report = sweep()

    assert report.orphans_cancelled == 2
    assert report.leases_returned == report.leases_failed == 0
    for unit in refreshed(held):
        assert unit.status == UnitStatus.CANCELLED
        assert unit.error_code == ErrorCode.CANCELLED
        assert unit.lease_token is None
    task_queue.drain()
    assert sweep().as_dict() == janitor.SweepReport().as_dict()  # nothing left to repair

    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert counts(run) == {UnitStatus.CANCELLED: 8}
    assert recording_translator.calls == []


# --- dead coordinator --------------------------------------------------------------------------


def test_dead_coordinator_is_restarted_and_enumeration_completes_without_duplicates(
    site, begin, task_queue, sweep, conf, monkeypatch
):
    # One object per coordinator tick: a fake clock advances one second per reading.
    conf(ENUMERATION_BATCH_SIZE=1, COORDINATOR_TICK_SECONDS=1.5)
    clock = iter(range(1_000_000))
    monkeypatch.setattr(coordinator, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    run = begin()
    task_queue.run_first("coordinate_run")
    run.refresh_from_db()
    assert not run.enumeration_done
    assert run.coordinator_token is not None

    # The coordinator is alive (lease valid): the sweep leaves it alone.
    assert sweep().coordinators_restarted == 0
    assert task_queue.names().count("coordinate_run") == 1

    # Its worker is killed: the queued tasks are lost, and time passes (the lease runs out).
    task_queue.clear()
    Run.objects.filter(pk=run.pk).update(
        coordinator_lease_expires_at=long_ago(), heartbeat_at=long_ago()
    )

    assert sweep().coordinators_restarted == 1
    assert task_queue.names().count("coordinate_run") == 1
    assert sweep().coordinators_restarted == 0  # not restarted again before it could run
    assert task_queue.names().count("coordinate_run") == 1
    task_queue.drain()

    run.refresh_from_db()
    assert run.enumeration_done
    assert run.status == RunStatus.SUCCEEDED
    units = Unit.objects.filter(run=run)
    assert units.count() == run.units_total == 8
    keys = list(units.values_list("object_key", "target_locale_id"))
    assert len(set(keys)) == len(keys)
    assert sorted(set(units.values_list("position", flat=True))) == [0, 1, 2, 3]
    assert counts(run) == {UnitStatus.SUCCEEDED: 8}


def test_restarted_coordinator_and_a_late_old_tick_do_not_enumerate_twice(
    site, begin, task_queue, sweep, conf, monkeypatch
):
    conf(ENUMERATION_BATCH_SIZE=1, COORDINATOR_TICK_SECONDS=1.5)
    clock = iter(range(1_000_000))
    monkeypatch.setattr(coordinator, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    run = begin()
    task_queue.run_first("coordinate_run")
    # The next tick is only late, not lost: both it and the restarted coordinator run.
    Run.objects.filter(pk=run.pk).update(coordinator_lease_expires_at=long_ago())
    assert sweep().coordinators_restarted == 1
    assert task_queue.names().count("coordinate_run") == 2
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert Unit.objects.filter(run=run).count() == run.units_total == 8


# --- stalled runs and runs left unfinished -----------------------------------------------------


def test_stalled_run_gets_workers_once(site, begin, task_queue, sweep):
    run = begin()
    task_queue.run_first("coordinate_run")
    task_queue.clear()  # every worker task was lost
    Run.objects.filter(pk=run.pk).update(heartbeat_at=long_ago())

    report = sweep()

    expected = schedule.workers_needed(8)
    assert report.workers_queued == expected
    assert task_queue.names().count("process_units") == expected
    second = sweep()  # right after: the run just got workers
    assert second.workers_queued == 0
    assert task_queue.names().count("process_units") == expected
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def test_run_whose_workers_were_just_queued_is_not_stalled(site, begin, task_queue, sweep):
    """A run that just started has had no worker activity yet, but it is not stalled: its
    coordinator queued its workers. Queuing more exceeds WORKER_CONCURRENCY."""
    begin()
    task_queue.run_first("coordinate_run")
    queued = task_queue.names().count("process_units")
    assert queued >= 1

    assert sweep().workers_queued == 0
    assert task_queue.names().count("process_units") == queued


def test_run_with_recent_worker_activity_is_not_stalled(site, begin, task_queue, sweep):
    run = begin()
    task_queue.run_first("coordinate_run")
    task_queue.clear()
    claims.claim_units(run.pk, 1)  # a worker just claimed units: heartbeat is fresh

    assert sweep().workers_queued == 0
    assert "process_units" not in task_queue.names()


def test_paused_run_gets_no_workers(site, begin, task_queue, sweep):
    run = begin()
    task_queue.run_first("coordinate_run")
    task_queue.clear()
    controls.pause_run(run.pk)
    Run.objects.filter(pk=run.pk).update(heartbeat_at=long_ago())

    assert sweep().workers_queued == 0
    assert task_queue.names() == []


def test_running_run_whose_units_are_all_terminal_is_finished(site, begin, task_queue, sweep):
    run = begin()
    task_queue.run_first("coordinate_run")
    task_queue.clear()
    # The worker that ended the last unit died before it could finish the run.
    Unit.objects.filter(run=run).update(status=UnitStatus.SUCCEEDED)
    Unit.objects.filter(run=run, object_key=site.stories[1].translation_key).update(
        status=UnitStatus.FAILED, error_code=ErrorCode.INTERNAL_ERROR
    )
    assert Run.objects.get(pk=run.pk).status == RunStatus.RUNNING

    report = sweep()

    assert report.runs_finished == 1
    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert run.finished_at is not None
    assert sweep().runs_finished == 0


def test_run_still_enumerating_is_not_finished(site, begin, task_queue, sweep, conf, monkeypatch):
    conf(ENUMERATION_BATCH_SIZE=1, COORDINATOR_TICK_SECONDS=1.5)
    clock = iter(range(1_000_000))
    monkeypatch.setattr(coordinator, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    run = begin()
    task_queue.run_first("coordinate_run")
    Unit.objects.filter(run=run).update(status=UnitStatus.SUCCEEDED)

    assert sweep().runs_finished == 0
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING


# --- the janitor chain -------------------------------------------------------------------------


@pytest.fixture
def janitor_on(conf):
    conf(JANITOR_INTERVAL_SECONDS=60)


def test_duplicate_janitor_chains_exit_at_once(site, begin, task_queue, janitor_on):
    run = begin()  # starting a run starts the janitor chain
    assert task_queue.names().count("janitor_sweep") == 1
    schedule.ensure_janitor()  # a second delivery (another run started, a redelivered task)
    assert task_queue.names().count("janitor_sweep") == 2

    first = task_queue.run_first("janitor_sweep")
    second = task_queue.run_first("janitor_sweep")

    assert first["ran"] is True
    assert second == {"ran": False}
    assert task_queue.names().count("janitor_sweep") == 1  # only the live chain continues
    lease = JanitorLease.objects.get()
    assert lease.token is not None

    assert task_queue.run_first("janitor_sweep")["ran"] is True  # the chain renews its lease
    assert task_queue.names().count("janitor_sweep") == 1

    controls.cancel_run(run.pk)
    assert task_queue.run_first("janitor_sweep")["ran"] is True
    assert "janitor_sweep" not in task_queue.names()  # no active run: the chain ends
    assert JanitorLease.objects.get().token is None


def test_janitor_chain_ends_with_the_run(site, begin, task_queue, janitor_on):
    run = begin()
    executed = task_queue.drain(max_tasks=500)

    assert executed < 500
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert JanitorLease.objects.get().token is None


def test_expired_janitor_lease_is_taken_over(site, begin, task_queue, janitor_on):
    begin()
    JanitorLease.objects.update_or_create(
        pk=1,
        defaults={
            "token": "11111111-1111-1111-1111-111111111111",
            "expires_at": long_ago(),
        },
    )

    assert task_queue.run_first("janitor_sweep")["ran"] is True
    assert str(JanitorLease.objects.get().token) != "11111111-1111-1111-1111-111111111111"


def test_janitor_lease_held_by_a_live_chain_is_respected(site, begin, task_queue, janitor_on):
    begin()
    JanitorLease.objects.update_or_create(
        pk=1,
        defaults={
            "token": "11111111-1111-1111-1111-111111111111",
            "expires_at": timezone.now() + timedelta(hours=1),
        },
    )

    assert task_queue.run_first("janitor_sweep") == {"ran": False}
    assert "janitor_sweep" not in task_queue.names()


# --- manage.py bulk_translate_janitor ----------------------------------------------------------


@pytest.fixture
def janitor_command(django_capture_on_commit_callbacks):
    def _run(*args) -> str:
        out = StringIO()
        with django_capture_on_commit_callbacks(execute=True):
            call_command("bulk_translate_janitor", *args, stdout=out)
        return out.getvalue()

    return _run


def test_janitor_command_sweeps_once(site, begin, task_queue, janitor_command):
    run = begin()
    task_queue.run_first("coordinate_run")
    task_queue.clear()
    held = crash_worker(run)

    report = json.loads(janitor_command("--json"))

    assert report["leases_returned"] == 2
    assert report["workers_queued"] >= 1
    assert {u.status for u in refreshed(held)} == {UnitStatus.PENDING}
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def test_janitor_command_prints_a_readable_report(site, begin, task_queue, janitor_command):
    run = begin()
    task_queue.run_first("coordinate_run")
    crash_worker(run)

    out = janitor_command()

    assert "leases returned: 2" in out
    assert "{" not in out


@pytest.mark.parametrize("seconds", ["0", "-5"])
def test_janitor_command_refuses_a_loop_interval_that_is_not_positive(seconds, janitor_command):
    with pytest.raises(CommandError, match="greater than 0"):
        janitor_command("--loop", seconds)


def test_janitor_command_loops(site, begin, task_queue, janitor_command, monkeypatch):
    from wagtail_bulk_translate.management.commands import bulk_translate_janitor as module

    class Stop(Exception):
        pass

    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        if len(sleeps) == 2:
            raise Stop

    monkeypatch.setattr(module, "time", types.SimpleNamespace(sleep=sleep))
    with pytest.raises(Stop):
        janitor_command("--loop", "30", "--json")
    assert sleeps == [30, 30]
