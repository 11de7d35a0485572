"""The run tally equals what counting the units says, after every kind of unit change."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db.models import F
from wagtail.models import Locale, Page

from tests.engine.test_coordinator import run_coordinator
from wagtail_bulk_translate.api import start_revert
from wagtail_bulk_translate.engine import claims, finish
from wagtail_bulk_translate.engine.worker import process_claim
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import Run, RunStatus, RunTally, Unit, UnitStatus
from wagtail_bulk_translate.models import tally_writes as tally
from wagtail_bulk_translate.runs import controls
from wagtail_bulk_translate.translators.pins import RunTranslators

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_repair_at_finish(monkeypatch):
    """A finishing run rebuilds its tally from its units: here it only counts them, so these
    tests check the tally as every unit write kept it, not as the repair left it."""
    monkeypatch.setattr(finish, "recount_tally", tally.counted_groups)


def a_bug(text: str) -> str:
    raise ValueError("a bug in the translator")


def assert_tally_exact(*runs: Run) -> None:
    for run in runs:
        assert tally.stored_groups(run.pk) == tally.counted_groups(run.pk), run
        statuses = Unit.objects.filter(run=run).values_list("status", flat=True)
        expected = {status: list(statuses).count(status) for status in UnitStatus.values}
        assert run.unit_counts() == expected


@pytest.fixture
def now_run(task_queue, django_capture_on_commit_callbacks):
    """Call a control as the admin does: its on-commit scheduling executed, then the queue."""

    def _call(function, *args, drain=True):
        with django_capture_on_commit_callbacks(execute=True):
            result = function(*args)
        if drain:
            task_queue.drain()
        return result

    return _call


def test_the_tally_follows_failures_retries_and_a_revert(
    site, begin, task_queue, recording_translator, now_run
):
    recording_translator.overrides[site.other.title] = a_bug
    run = begin(locales=("fr", "de"))
    task_queue.drain()
    run.refresh_from_db()
    assert run.status in (RunStatus.PARTIAL, RunStatus.FAILED)
    failed = run.unit_counts()[UnitStatus.FAILED]
    assert failed >= 2
    assert_tally_exact(run)

    recording_translator.overrides.clear()
    assert now_run(controls.retry_failed, run.pk) == failed
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert_tally_exact(run)

    now_run(start_revert, run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.REVERTED
    assert_tally_exact(run)


def test_the_tally_follows_a_cancel_while_a_worker_holds_units(
    site, begin, task_queue, recording_translator
):
    run = begin(scope=site.scope_with_category)
    run_coordinator(task_queue)
    token, held = claims.claim_units(run.pk, 1)
    assert_tally_exact(run)

    assert controls.cancel_run(run.pk) == 8
    assert_tally_exact(run)
    translator = RunTranslators(run)
    process_claim(claims.Claim(run, token), translator, held)
    assert run.unit_counts()[UnitStatus.SUCCEEDED] == 2
    assert_tally_exact(run)


def test_the_tally_follows_a_canary_its_sample_and_its_promotion(
    site, start, task_queue, recording_translator, now_run
):
    canary = start(scope=site.scope, source_locale="en", target_locales=["fr", "de"], canary_size=2)
    task_queue.drain()
    canary.refresh_from_db()
    assert canary.is_finished
    counts = canary.unit_counts()
    assert counts[UnitStatus.SUCCEEDED] >= 2
    assert counts[UnitStatus.SKIPPED] == 8 - counts[UnitStatus.SUCCEEDED]
    assert_tally_exact(canary)

    full = now_run(controls.promote_canary, canary.pk)
    full.refresh_from_db()
    assert full.status == RunStatus.SUCCEEDED
    assert_tally_exact(canary, full)


def test_saves_deletes_and_conflicting_inserts_of_units_are_counted(site):
    run = Run.objects.create(source_locale=Locale.objects.get(language_code="en"))
    fr = Locale.objects.get(language_code="fr")
    page_type = ContentType.objects.get_for_model(Page)

    def unit(key: uuid.UUID, **fields) -> Unit:
        return Unit(run=run, position=0, content_type=page_type, object_id="1",
                    object_key=key, target_locale=fr, **fields)  # fmt: skip

    first = unit(uuid.uuid4())
    first.save()
    twice = uuid.uuid4()
    Unit.objects.bulk_create(
        [unit(first.object_key), unit(twice), unit(twice)], ignore_conflicts=True
    )
    assert run.unit_counts()[UnitStatus.PENDING] == 2
    first.status, first.error_code, first.billed_characters = "failed", "internal_error", 7
    first.save()
    Unit.objects.filter(pk=first.pk).update(billed_characters=F("billed_characters") + 3)
    assert run.unit_totals()["billed_characters"] == 10
    assert_tally_exact(run)

    first.delete()
    Unit.objects.filter(run=run).delete()
    assert tally.stored_groups(run.pk) == {}
    assert_tally_exact(run)


def test_recount_repairs_a_tally_that_drifted(site, begin, task_queue, recording_translator):
    run = begin(locales=("fr",))
    task_queue.drain()
    RunTally.objects.filter(run=run).update(units=99)
    RunTally.objects.create(
        run=run, target_locale=Locale.objects.get(language_code="de"),
        content_type=ContentType.objects.get_for_model(Page), status="failed", units=5,
    )  # fmt: skip
    assert tally.stored_groups(run.pk) != tally.counted_groups(run.pk)

    tally.recount_tally(run.pk)
    assert_tally_exact(run)
    assert run.unit_counts()[UnitStatus.SUCCEEDED] == 4


def test_bulk_updates_larger_than_a_chunk_are_counted(site, begin, task_queue, monkeypatch):
    monkeypatch.setattr(tally, "CHUNK", 3)
    run = begin(locales=("fr", "de"))
    run_coordinator(task_queue)
    cancelled = Unit.objects.filter(run=run).cancel_pending(ErrorCode.CANCELLED, "Stopped.")
    assert cancelled == 8
    assert run.unit_counts()[UnitStatus.CANCELLED] == 8
    assert_tally_exact(run)
