"""The coordinator: resumable time-budgeted ticks, leases, duplicates, and what it queues."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from tests.factories import article, category, home_page, index_page, locales
from wagtail_bulk_translate.engine import coordinator
from wagtail_bulk_translate.engine.coordinator import coordinate
from wagtail_bulk_translate.engine.finish import try_finish_run
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import Run, RunStatus, Unit, UnitStatus
from wagtail_bulk_translate.schedule import start_coordinator as enqueue_coordinator
from wagtail_bulk_translate.scope.definition import Scope
from wagtail_bulk_translate.scope.enumeration import iter_scope

pytestmark = pytest.mark.django_db

BATCH_SIZE = 2
COORDINATE = "coordinate_run"
PROCESS = "process_units"


# --- fixtures and helpers -----------------------------------------------------------------------


@pytest.fixture
def one_batch_per_tick(settings):
    """Each coordinator tick reads one batch of BATCH_SIZE objects, then re-queues itself."""
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "ENUMERATION_BATCH_SIZE": BATCH_SIZE,
        "COORDINATOR_TICK_SECONDS": 0,
    }


@pytest.fixture
def sections():
    """9 objects: a home page, a section with 4 articles, a second section, 2 categories."""
    loc = locales()
    home = home_page("Home")
    news = index_page(home, "News")
    articles = [article(news, f"Story {i}") for i in range(4)]
    guides = index_page(home, "Guides")
    categories = [category("Travel"), category("Food")]
    scope = {"pages": [{"id": home.pk, "descendants": True}], "snippets": ["demo.Category"]}
    return SimpleNamespace(
        loc=loc,
        home=home,
        news=news,
        guides=guides,
        articles=articles,
        categories=categories,
        scope=scope,
        objects=9,
    )


def plugin_tasks(task_queue, name: str | None = None) -> list:
    names = (name,) if name else (COORDINATE, PROCESS)
    return [r for r in task_queue.pending() if r.task.name in names]


def run_task(task_queue, result):
    """Execute one queued task result (removed from the queue) with on-commit callbacks run."""
    if result in task_queue.backend.results:
        task_queue.backend.results.remove(result)
    with task_queue.capture_on_commit(execute=True):
        return result.task.func(*result.args, **result.kwargs)


def run_first(task_queue, name: str):
    results = plugin_tasks(task_queue, name)
    assert results, f"no {name} task queued"
    return run_task(task_queue, results[0])


def run_coordinator(task_queue, max_ticks: int = 50) -> list[dict]:
    """Run coordinator tasks (only) until none is queued; returns what each returned."""
    outcomes = []
    while plugin_tasks(task_queue, COORDINATE):
        assert len(outcomes) < max_ticks, f"the coordinator is still queued after {max_ticks}"
        outcomes.append(run_first(task_queue, COORDINATE))
    return outcomes


def drain(task_queue, max_tasks: int = 500) -> None:
    task_queue.drain(max_tasks=max_tasks)


def start_run(start, sections, **kwargs):
    options = {"scope": sections.scope, "source_locale": "en", "target_locales": ["fr", "de"]}
    return start(**{**options, **kwargs})


def expected_pairs(run: Run) -> list[tuple]:
    """(object key, target locale id) of every unit the run must have, in enumeration order."""
    run.refresh_from_db()
    targets = sorted(run.target_locales.values_list("pk", flat=True))
    objects = iter_scope(Scope.from_json(run.scope), run.source_locale)
    return [(o.object_key, loc) for o in objects for loc in targets]


def assert_units_exactly_once(run: Run) -> None:
    """Every (object, locale) once, positions 0..n-1 in enumeration order: no gap, no repeat."""
    units = list(
        Unit.objects.filter(run=run)
        .order_by("position", "target_locale_id")
        .values_list("object_key", "target_locale_id", "position")
    )
    assert [(k, loc) for k, loc, _ in units] == expected_pairs(run)
    positions = sorted({p for _, _, p in units})
    assert positions == list(range(len(positions)))


def expire_coordinator_lease(run: Run) -> None:
    Run.objects.filter(pk=run.pk).update(
        coordinator_lease_expires_at=timezone.now() - timedelta(seconds=1)
    )


def janitor_restarts_coordinator(task_queue, run: Run) -> None:
    """What a janitor does for a run whose coordinator died: its lease expired, queue a new one."""
    expire_coordinator_lease(run)
    with task_queue.capture_on_commit(execute=True):
        enqueue_coordinator(run.pk)


# --- ticks --------------------------------------------------------------------------------------


def test_a_tick_commits_one_batch_and_requeues_itself_with_its_lease(
    sections, start, task_queue, one_batch_per_tick
):
    run = start_run(start, sections)
    assert [r.args for r in plugin_tasks(task_queue)] == [[run.pk]]

    outcome = run_first(task_queue, COORDINATE)
    run.refresh_from_db()
    assert outcome["ran"] and not outcome["done"]
    assert outcome["units_created"] == BATCH_SIZE * 2
    assert Unit.objects.filter(run=run).count() == BATCH_SIZE * 2
    assert run.status == RunStatus.RUNNING
    assert run.enumeration_cursor["position"] == BATCH_SIZE
    assert not run.enumeration_done
    # The continuation carries the lease token, so it is not blocked by its own lease.
    [continuation] = plugin_tasks(task_queue, COORDINATE)
    assert continuation.args == [run.pk, str(run.coordinator_token)]
    # Queued to run at once: the next batch never waits for a tick to go by.
    assert continuation.task.run_after is None

    run_first(task_queue, COORDINATE)
    run.refresh_from_db()
    assert run.enumeration_cursor["position"] == 2 * BATCH_SIZE
    assert Unit.objects.filter(run=run).count() == 2 * BATCH_SIZE * 2


def test_ticks_continue_until_the_whole_scope_is_enumerated(
    sections, start, task_queue, one_batch_per_tick
):
    run = start_run(start, sections)
    outcomes = run_coordinator(task_queue)
    run.refresh_from_db()
    assert run.enumeration_done
    assert run.coordinator_token is None
    assert_units_exactly_once(run)
    assert Unit.objects.filter(run=run).count() == sections.objects * 2
    # One batch per tick: as many ticks as batches (plus at most one that finds the end).
    assert sections.objects // BATCH_SIZE <= len(outcomes) <= sections.objects // BATCH_SIZE + 1
    assert outcomes[-1]["done"]


def test_units_total_is_final_only_once_enumeration_is_done(
    sections, start, task_queue, one_batch_per_tick
):
    run = start_run(start, sections)
    final = sections.objects * 2
    for _tick in range(50):
        if not plugin_tasks(task_queue, COORDINATE):
            break
        run_first(task_queue, COORDINATE)
        run.refresh_from_db()
        created = Unit.objects.filter(run=run).count()
        assert run.units_total == created
        if not run.enumeration_done:
            assert created < final
    assert run.enumeration_done
    assert run.units_total == final == Unit.objects.filter(run=run).count()


def test_overlapping_scope_parts_create_and_count_each_unit_once(
    sections, start, task_queue, one_batch_per_tick
):
    story = sections.articles[0]
    scope = {
        "pages": [{"id": sections.home.pk, "descendants": True}, {"id": story.pk}],
        "snippets": ["demo.Category", "demo.Category"],
        "objects": [
            ["demo.ArticlePage", str(story.pk)],
            ["demo.Category", str(sections.categories[0].pk)],
        ],
    }
    run = start_run(start, sections, scope=scope)
    run_coordinator(task_queue)
    run.refresh_from_db()
    units = Unit.objects.filter(run=run)
    pairs = list(units.values_list("object_key", "target_locale_id"))
    assert len(pairs) == len(set(pairs)) == sections.objects * 2
    assert run.units_total == units.count()
    assert not units.filter(error_code=ErrorCode.DUPLICATE_IN_FLIGHT).exists()


def test_enumeration_queries_do_not_grow_with_the_number_of_objects(
    start, task_queue, count_queries
):
    loc = locales()
    home = home_page("Home")
    news = index_page(home, "News")

    def queries_for():
        scope = {"pages": [{"id": home.pk, "descendants": True}], "snippets": ["demo.Category"]}
        run = start(scope=scope, source_locale="en", target_locales=["fr", "de"])
        with count_queries() as ctx:
            assert coordinate(run.pk).done
        Unit.objects.filter(run=run).delete()
        return len(ctx.captured_queries)

    category("Travel")
    article(news, "Story")
    few = queries_for()
    for i in range(30):
        category(f"Category {i}")
        article(news, f"Story {i}")
    many = queries_for()
    assert many <= few + 3, f"62 objects took {many} queries, 4 took {few}"
    assert loc["en"].pk == home.locale_id


# --- crashes, janitor, duplicate deliveries -------------------------------------------------------


def test_a_coordinator_killed_between_ticks_resumes_without_duplicates_or_gaps(
    sections, start, task_queue, one_batch_per_tick
):
    run = start_run(start, sections)
    run_first(task_queue, COORDINATE)
    # The worker process dies: its queued continuation is lost with it, the lease is still held.
    task_queue.clear()

    # A restart before the lease expires finds the lease held and does nothing.
    with task_queue.capture_on_commit(execute=True):
        enqueue_coordinator(run.pk)
    assert run_first(task_queue, COORDINATE)["ran"] is False
    assert plugin_tasks(task_queue, COORDINATE) == []
    assert Unit.objects.filter(run=run).count() == BATCH_SIZE * 2

    janitor_restarts_coordinator(task_queue, run)
    run_coordinator(task_queue)
    run.refresh_from_db()
    assert run.enumeration_done
    assert_units_exactly_once(run)
    assert run.units_total == sections.objects * 2


def test_a_coordinator_killed_inside_a_batch_loses_and_repeats_nothing(
    sections, start, task_queue, one_batch_per_tick, monkeypatch
):
    run = start_run(start, sections)
    real_create_units = coordinator.create_units
    calls = []

    def dies_on_second_batch(*args, **kwargs):
        created = real_create_units(*args, **kwargs)
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("worker killed after inserting the units of batch 2")
        return created

    monkeypatch.setattr(coordinator, "create_units", dies_on_second_batch)
    run_first(task_queue, COORDINATE)
    with pytest.raises(RuntimeError):
        run_first(task_queue, COORDINATE)
    run.refresh_from_db()
    # The failed batch's units and cursor were rolled back together.
    assert run.enumeration_cursor["position"] == BATCH_SIZE
    assert Unit.objects.filter(run=run).count() == BATCH_SIZE * 2
    assert run.units_total == BATCH_SIZE * 2

    monkeypatch.setattr(coordinator, "create_units", real_create_units)
    task_queue.clear()
    janitor_restarts_coordinator(task_queue, run)
    run_coordinator(task_queue)
    assert_units_exactly_once(run)


def test_a_stale_continuation_after_a_takeover_writes_nothing(
    sections, start, task_queue, one_batch_per_tick
):
    run = start_run(start, sections)
    run_first(task_queue, COORDINATE)
    [stale] = plugin_tasks(task_queue, COORDINATE)
    task_queue.backend.results.remove(stale)  # delayed, not lost: it runs after the takeover

    janitor_restarts_coordinator(task_queue, run)
    run_first(task_queue, COORDINATE)  # the new coordinator commits batch 2 under a new token
    run.refresh_from_db()
    assert str(run.coordinator_token) != stale.args[1]
    units_before = Unit.objects.filter(run=run).count()

    assert run_task(task_queue, stale)["ran"] is False
    assert Unit.objects.filter(run=run).count() == units_before
    assert len(plugin_tasks(task_queue, COORDINATE)) == 1  # the live chain only

    run_coordinator(task_queue)
    assert_units_exactly_once(run)


def test_three_deliveries_of_the_coordinator_create_each_unit_once_and_one_chain_of_ticks(
    sections, start, task_queue, one_batch_per_tick
):
    run = start_run(start, sections)
    with task_queue.capture_on_commit(execute=True):
        enqueue_coordinator(run.pk)
        enqueue_coordinator(run.pk)
    assert len(plugin_tasks(task_queue, COORDINATE)) == 3

    executed = []
    while plugin_tasks(task_queue, COORDINATE):
        assert len(executed) < 50, "coordinator ticks never end"
        first = plugin_tasks(task_queue, COORDINATE)[0]
        executed.append((first.args, run_task(task_queue, first)))
        queued = plugin_tasks(task_queue, COORDINATE)
        # Never more than one continuation (a task carrying a lease token) at a time.
        assert len([r for r in queued if len(r.args) > 1]) <= 1

    fresh = [outcome for args, outcome in executed if len(args) == 1]
    continuations = [outcome for args, outcome in executed if len(args) > 1]
    assert len(fresh) == 3
    assert [o["ran"] for o in fresh].count(True) == 1
    assert all(o["ran"] for o in continuations)
    batches = -(-sections.objects // BATCH_SIZE)
    # The first tick enumerates the first batch; one continuation per batch after it.
    assert len(continuations) == batches - 1
    assert sum(o["units_created"] for _args, o in executed) == sections.objects * 2
    assert_units_exactly_once(run)


def test_a_coordinator_delivered_after_enumeration_does_nothing(sections, start, task_queue):
    run = start_run(start, sections)
    run_coordinator(task_queue)
    run.refresh_from_db()
    assert run.enumeration_done
    before = Unit.objects.filter(run=run).count()
    janitor_restarts_coordinator(task_queue, run)
    assert run_coordinator(task_queue) == [{"ran": False, "units_created": 0, "done": False}]
    assert Unit.objects.filter(run=run).count() == before


# --- what the coordinator queues, and when the run may finish ------------------------------------


def test_a_zero_second_budget_still_makes_progress(sections, start, task_queue, one_batch_per_tick):
    run = start_run(start, sections)
    for _ in range(3):
        run_first(task_queue, COORDINATE)
    assert Unit.objects.filter(run=run).count() == 3 * BATCH_SIZE * 2


def test_the_run_stays_running_until_enumeration_is_done(
    sections, start, task_queue, one_batch_per_tick
):
    # Two categories (the first batch), then the home page alone (the second).
    scope = {"pages": [{"id": sections.home.pk}], "snippets": ["demo.Category"]}
    run = start_run(start, sections, scope=scope)
    run_first(task_queue, COORDINATE)
    [continuation] = plugin_tasks(task_queue, COORDINATE)
    task_queue.backend.results.remove(continuation)  # the coordinator is slow

    # Workers finish every unit committed so far, then their chain ends instead of polling
    # for more: the coordinator's next batch starts a chain for its units.
    task_queue.drain()
    assert plugin_tasks(task_queue, PROCESS) == []
    run.refresh_from_db()
    assert run.worker_chains == 0
    done = Unit.objects.filter(run=run)
    assert done.count() == BATCH_SIZE * 2
    assert set(done.values_list("status", flat=True)) == {UnitStatus.SUCCEEDED}
    assert run.status == RunStatus.RUNNING
    assert run.finished_at is None
    assert try_finish_run(run.pk) is False
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING

    task_queue.backend.results.append(continuation)
    drain(task_queue)
    run.refresh_from_db()
    assert run.enumeration_done
    assert run.status == RunStatus.SUCCEEDED
    assert run.units.filter(status=UnitStatus.SUCCEEDED).count() == 3 * 2
    assert run.units_total == 3 * 2


def test_workers_are_queued_only_for_committed_units(
    sections, start, task_queue, one_batch_per_tick, monkeypatch
):
    run = start_run(start, sections)
    assert plugin_tasks(task_queue, PROCESS) == []
    run_first(task_queue, COORDINATE)
    assert len(plugin_tasks(task_queue, PROCESS)) >= 1
    assert all(r.args == [run.pk] for r in plugin_tasks(task_queue, PROCESS))
    for result in plugin_tasks(task_queue, PROCESS):
        task_queue.backend.results.remove(result)

    real_create_units = coordinator.create_units

    def rolled_back(*args, **kwargs):
        real_create_units(*args, **kwargs)
        raise RuntimeError("the batch's transaction does not commit")

    monkeypatch.setattr(coordinator, "create_units", rolled_back)
    with pytest.raises(RuntimeError):
        run_first(task_queue, COORDINATE)
    assert plugin_tasks(task_queue, PROCESS) == []
    assert Unit.objects.filter(run=run).count() == BATCH_SIZE * 2


def test_a_coordinator_that_lost_its_lease_queues_no_workers(
    sections, start, task_queue, one_batch_per_tick
):
    run = start_run(start, sections)
    run_first(task_queue, COORDINATE)
    for result in plugin_tasks(task_queue, PROCESS):
        task_queue.backend.results.remove(result)
    # Someone else took the run over while this coordinator's continuation waited.
    Run.objects.filter(pk=run.pk).update(
        coordinator_token="00000000-0000-4000-8000-000000000000",
        coordinator_lease_expires_at=timezone.now() + timedelta(minutes=5),
    )
    outcome = run_first(task_queue, COORDINATE)
    assert outcome["units_created"] == 0
    assert plugin_tasks(task_queue) == []
    assert Unit.objects.filter(run=run).count() == BATCH_SIZE * 2


def test_worker_tasks_queued_during_enumeration_stay_within_worker_concurrency(
    sections, start, task_queue, settings
):
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "ENUMERATION_BATCH_SIZE": 1,
        "COORDINATOR_TICK_SECONDS": 0,
        "WORKER_CONCURRENCY": 2,
    }
    start_run(start, sections)
    run_coordinator(task_queue)
    queued = len(plugin_tasks(task_queue, PROCESS))
    # One chain per batch with claimable units, until the run has WORKER_CONCURRENCY chains.
    assert queued == 2, f"{queued} worker tasks queued for one run (concurrency 2)"


def test_a_run_with_nothing_claimable_finishes_at_the_end_of_enumeration(
    sections, start, task_queue, one_batch_per_tick
):
    first = start_run(start, sections)
    run_coordinator(task_queue)
    task_queue.clear()
    second = start_run(start, sections)
    run_coordinator(task_queue)
    second.refresh_from_db()
    assert second.status == RunStatus.SUCCEEDED
    assert plugin_tasks(task_queue, PROCESS) == []
    assert Unit.objects.filter(run=first, status=UnitStatus.PENDING).count() == sections.objects * 2


# --- one in-flight unit per (object, locale) across runs -----------------------------------------


def test_a_second_run_records_units_in_flight_elsewhere_as_skipped_duplicates(
    sections, start, task_queue, one_batch_per_tick
):
    first = start_run(start, sections)
    run_coordinator(task_queue)
    task_queue.clear()  # the first run's workers have not started
    assert first.units.filter(status=UnitStatus.PENDING).count() == sections.objects * 2

    extra = category("Science")  # only the second run has it
    second = start_run(start, sections)
    run_coordinator(task_queue)
    second.refresh_from_db()
    units = second.units.all()
    assert units.count() == second.units_total == (sections.objects + 1) * 2
    duplicates = units.filter(status=UnitStatus.SKIPPED, error_code=ErrorCode.DUPLICATE_IN_FLIGHT)
    assert duplicates.count() == sections.objects * 2
    assert all(u.error_message for u in duplicates)
    assert all(u.finished_at for u in duplicates)
    new = units.exclude(pk__in=duplicates)
    assert set(new.values_list("object_key", flat=True)) == {extra.translation_key}
    assert set(new.values_list("status", flat=True)) == {UnitStatus.PENDING}
    assert not units.filter(status=UnitStatus.FAILED).exists()
    # The first run's units are untouched.
    assert first.units.filter(status=UnitStatus.PENDING).count() == sections.objects * 2

    # Once the first runs are over, a new run may translate their objects again.
    first.units.update(status=UnitStatus.SUCCEEDED, finished_at=timezone.now())
    second.units.filter(status=UnitStatus.PENDING).update(status=UnitStatus.SUCCEEDED)
    Run.objects.filter(pk__in=[first.pk, second.pk]).update(
        status=RunStatus.SUCCEEDED, finished_at=timezone.now()
    )
    third = start_run(start, sections)
    run_coordinator(task_queue)
    assert third.units.filter(status=UnitStatus.PENDING).count() == (sections.objects + 1) * 2


def test_the_database_refuses_two_in_flight_units_for_one_object_and_locale(
    sections, start, task_queue
):
    first = start_run(start, sections)
    run_coordinator(task_queue)
    second = start_run(start, sections)
    unit = first.units.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Unit.objects.create(
            run=second,
            position=0,
            content_type_id=unit.content_type_id,
            object_id=unit.object_id,
            object_key=unit.object_key,
            target_locale_id=unit.target_locale_id,
            status=UnitStatus.RUNNING,
        )
    # A finished unit for the same pair is fine.
    Unit.objects.create(
        run=second,
        position=0,
        content_type_id=unit.content_type_id,
        object_id=unit.object_id,
        object_key=unit.object_key,
        target_locale_id=unit.target_locale_id,
        status=UnitStatus.SKIPPED,
    )
