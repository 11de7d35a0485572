"""Run controls: cancel, pause/resume, retry failed units, promote a canary.

Runs are driven through the real tasks on the ``task_queue`` fixture (a DummyBackend queue
drained in-process). Controls are called as an editor would, with their on-commit enqueues
executed. Failures are provoked with the RecordingTranslator's per-text overrides.
"""

from __future__ import annotations

import types
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.lookups import counts, translated, unit_of, units_of
from wagtail_bulk_translate import api as controls
from wagtail_bulk_translate.engine import claims, coordinator, worker
from wagtail_bulk_translate.errors import (
    ErrorCode,
    RunConfigurationError,
    TextTooLargeError,
    TranslatorError,
)
from wagtail_bulk_translate.models import Mode, Run, RunStatus, Unit, UnitStatus
from wagtail_bulk_translate.runs.liveness import seconds_without_worker
from wagtail_bulk_translate.translators.pins import RunTranslators

pytestmark = pytest.mark.django_db

LOCALES = ["fr", "de"]
UNIT_TABLE = Unit._meta.db_table


# --- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """Run a control as an editor's request would: its on-commit enqueues happen."""

    def _commit(func, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return func(*args, **kwargs)

    return _commit


@pytest.fixture
def billing(recording_translator, monkeypatch):
    """The recording translator also reports billed characters (one per source character)."""
    original = recording_translator.translate_texts

    def translate_texts(self, source_locale, target_locale, texts):
        result = original(self, source_locale, target_locale, texts)
        result.billed_characters = {text: len(text) for text in texts}
        return result

    monkeypatch.setattr(recording_translator, "translate_texts", translate_texts)
    return recording_translator


def sent(recording_translator) -> list[tuple[str, str]]:
    return [(code, text) for code, texts in recording_translator.calls for text in texts]


# --- cancel ------------------------------------------------------------------------------------


def test_cancel_mid_run_cancels_pending_units_and_lets_claimed_ones_finish(
    site, begin, task_queue, recording_translator
):
    run = begin(scope=site.scope_with_category)
    task_queue.run_first("coordinate_run")
    token, held = claims.claim_units(run.pk, 1)  # a worker holds the category, both locales
    assert {u.object_key for u in held} == {site.category.translation_key}
    assert len(held) == 2

    with CaptureQueriesContext(connection) as queries:
        cancelled = controls.cancel_run(run.pk)

    assert cancelled == 8
    unit_writes = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith("UPDATE") and UNIT_TABLE in q["sql"]
    ]
    assert len(unit_writes) == 1, unit_writes  # one statement, not one per unit
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert run.finished_at is not None
    assert counts(run) == {UnitStatus.RUNNING: 2, UnitStatus.CANCELLED: 8}
    for unit in Unit.objects.filter(run=run, status=UnitStatus.CANCELLED):
        assert unit.error_code == ErrorCode.CANCELLED
        assert unit.error_message
        assert unit.finished_at is not None

    # The worker that holds the claim finishes it: its token still fences its writes.
    translator = RunTranslators(run)
    worker.process_claim(claims.Claim(run, token), translator, held)
    assert {u.status for u in units_of(run, site.category)} == {UnitStatus.SUCCEEDED}
    assert translated(site.category, "fr") and translated(site.category, "de")

    # No new work starts: the queued workers find nothing to claim.
    calls = len(recording_translator.calls)
    task_queue.drain()
    assert len(recording_translator.calls) == calls
    assert claims.claim_units(run.pk, 10)[1] == []
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert counts(run) == {UnitStatus.SUCCEEDED: 2, UnitStatus.CANCELLED: 8}
    assert not translated(site.home, "fr")

    with pytest.raises(RunConfigurationError):
        controls.cancel_run(run.pk)


def test_a_worker_that_lost_its_claim_cannot_finish_the_unit(site, begin, task_queue):
    run = begin(scope=site.scope_with_category)
    task_queue.run_first("coordinate_run")
    token, held = claims.claim_units(run.pk, 1)
    controls.cancel_run(run.pk)

    assert not claims.finish_unit(held[0], "00000000-0000-0000-0000-000000000000", "succeeded")
    assert claims.finish_unit(held[0], token, UnitStatus.SUCCEEDED)
    assert not claims.finish_unit(held[0], token, UnitStatus.FAILED)  # once only
    held[0].refresh_from_db()
    assert held[0].status == UnitStatus.SUCCEEDED


@pytest.mark.parametrize(
    "status", [RunStatus.SUCCEEDED, RunStatus.PARTIAL, RunStatus.FAILED, RunStatus.REVERTED]
)
def test_cancelling_a_finished_run_is_refused(site, begin, task_queue, status):
    run = begin(scope=site.scope_with_category)
    task_queue.run_first("coordinate_run")
    Run.objects.filter(pk=run.pk).update(status=status)

    with pytest.raises(RunConfigurationError):
        controls.cancel_run(run.pk)
    run.refresh_from_db()
    assert run.status == status
    assert counts(run) == {UnitStatus.PENDING: 10}


def test_a_paused_run_can_be_cancelled(site, begin, task_queue):
    run = begin(scope=site.scope_with_category)
    task_queue.run_first("coordinate_run")
    assert controls.pause_run(run.pk)

    assert controls.cancel_run(run.pk) == 10
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert not controls.resume_run(run.pk)


def test_cancel_during_enumeration_stops_the_coordinator(
    site, begin, task_queue, conf, monkeypatch, recording_translator
):
    conf(ENUMERATION_BATCH_SIZE=1, COORDINATOR_TICK_SECONDS=1.5)
    clock = iter(range(1_000_000))
    monkeypatch.setattr(coordinator, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    run = begin(scope=site.scope_with_category)
    task_queue.run_first("coordinate_run")
    created = Unit.objects.filter(run=run).count()
    assert 0 < created < 10

    controls.cancel_run(run.pk)
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert not run.enumeration_done
    assert Unit.objects.filter(run=run).count() == created  # no units after the cancel
    assert counts(run) == {UnitStatus.CANCELLED: created}
    assert recording_translator.calls == []


# --- pause and resume --------------------------------------------------------------------------


def test_paused_run_hands_out_no_work_and_completes_after_resume(
    site, begin, task_queue, commit, recording_translator
):
    run = begin(scope=site.scope_with_category)
    task_queue.run_first("coordinate_run")
    assert task_queue.names().count("process_units") >= 1

    assert controls.pause_run(run.pk)
    assert not controls.pause_run(run.pk)  # already paused
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.PAUSED
    assert counts(run) == {UnitStatus.PENDING: 10}
    assert recording_translator.calls == []
    assert claims.claim_units(run.pk, 10)[1] == []

    assert commit(controls.resume_run, run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    assert "process_units" in task_queue.names()
    assert "coordinate_run" not in task_queue.names()  # enumeration was already done
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert counts(run) == {UnitStatus.SUCCEEDED: 10}
    assert not controls.resume_run(run.pk)  # only a paused run resumes


def test_resume_restarts_an_enumeration_that_the_pause_cut_short(
    site, begin, task_queue, commit, conf, monkeypatch, recording_translator
):
    # One object per coordinator tick: a fake clock advances one second per reading.
    conf(ENUMERATION_BATCH_SIZE=1, COORDINATOR_TICK_SECONDS=1.5)
    clock = iter(range(1_000_000))
    monkeypatch.setattr(coordinator, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))

    run = begin(scope=site.scope_with_category)
    task_queue.run_first("coordinate_run")
    run.refresh_from_db()
    assert not run.enumeration_done
    assert "coordinate_run" in task_queue.names()  # the next tick

    assert controls.pause_run(run.pk)
    task_queue.drain()  # the next tick and the workers find the run paused

    run.refresh_from_db()
    assert run.status == RunStatus.PAUSED
    assert not run.enumeration_done
    enumerated = Unit.objects.filter(run=run).count()
    assert 0 < enumerated < 10
    assert recording_translator.calls == []

    assert commit(controls.resume_run, run.pk)
    assert "coordinate_run" in task_queue.names()
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert run.enumeration_done
    units = Unit.objects.filter(run=run)
    assert units.count() == run.units_total == 10
    keys = list(units.values_list("object_key", "target_locale_id"))
    assert len(set(keys)) == len(keys)
    assert counts(run) == {UnitStatus.SUCCEEDED: 10}
    for obj in site.objects:
        assert translated(obj, "fr") and translated(obj, "de")


# --- retry failed units ------------------------------------------------------------------------


@pytest.fixture
def failed_run(site, begin, task_queue, conf, recording_translator):
    """A finished partial run: Story 0 failed (translator_error), the category (too_large)."""
    # One object per claim and request: a failing request fails its object only.
    conf(UNITS_PER_CLAIM=1, MAX_UNITS_PER_CLAIM=1)

    def refuse(text):
        raise TranslatorError("The translator refused this text.")

    def too_large(text):
        raise TextTooLargeError("This text is too large.")

    recording_translator.overrides.update({"Story 0": refuse, "Travel": too_large})
    run = begin(scope=site.scope_with_category)
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert counts(run) == {UnitStatus.SUCCEEDED: 6, UnitStatus.FAILED: 4}
    assert {u.error_code for u in units_of(run, site.stories[0])} == {ErrorCode.TRANSLATOR_ERROR}
    assert {u.error_code for u in units_of(run, site.category)} == {ErrorCode.TOO_LARGE}
    recording_translator.overrides.clear()  # the cause is gone
    return run


def assert_requeued(units: list[Unit]) -> None:
    for unit in units:
        unit.refresh_from_db()
        assert unit.status == UnitStatus.PENDING
        assert unit.attempts == 0
        assert unit.error_code == ""
        assert unit.error_message == ""
        assert unit.available_after is None
        assert unit.finished_at is None


def assert_still_failed(units: list[Unit]) -> None:
    for unit in units:
        unit.refresh_from_db()
        assert unit.status == UnitStatus.FAILED
        assert unit.error_code


def test_retry_all_failed_units_reopens_the_run_and_it_succeeds(
    site, failed_run, task_queue, commit
):
    run = failed_run
    failed = [*units_of(run, site.stories[0]), *units_of(run, site.category)]

    assert commit(controls.retry_failed, run.pk) == 4

    assert_requeued(failed)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    assert run.finished_at is None
    assert "process_units" in task_queue.names()
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert run.finished_at is not None
    assert counts(run) == {UnitStatus.SUCCEEDED: 10}
    assert translated(site.stories[0], "fr") and translated(site.category, "de")


def test_a_retried_run_waits_for_a_worker_from_the_retry_not_from_its_last_heartbeat(
    site, failed_run, commit
):
    long_ago = timezone.now() - timedelta(hours=1)
    Run.objects.filter(pk=failed_run.pk).update(heartbeat_at=long_ago, started_at=long_ago)

    commit(controls.retry_failed, failed_run.pk)

    failed_run.refresh_from_db()
    assert failed_run.status == RunStatus.RUNNING
    assert seconds_without_worker(failed_run) is None  # workers were just asked to come


def test_retry_by_model(site, failed_run, task_queue, commit):
    run = failed_run

    assert commit(controls.retry_failed, run.pk, models=["demo.Category"]) == 2

    assert_requeued(units_of(run, site.category))
    assert_still_failed(units_of(run, site.stories[0]))
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert {u.status for u in units_of(run, site.category)} == {UnitStatus.SUCCEEDED}
    assert counts(run) == {UnitStatus.SUCCEEDED: 8, UnitStatus.FAILED: 2}


def test_retry_by_page_model(site, failed_run, task_queue, commit):
    run = failed_run

    assert commit(controls.retry_failed, run.pk, models=["demo.ArticlePage"]) == 2

    assert_requeued(units_of(run, site.stories[0]))
    assert_still_failed(units_of(run, site.category))
    task_queue.drain()
    assert {u.status for u in units_of(run, site.stories[0])} == {UnitStatus.SUCCEEDED}


def test_retry_by_locale(site, failed_run, task_queue, commit):
    run = failed_run

    assert commit(controls.retry_failed, run.pk, locales=["de"]) == 2

    assert_requeued([unit_of(run, site.stories[0], "de"), unit_of(run, site.category, "de")])
    assert_still_failed([unit_of(run, site.stories[0], "fr"), unit_of(run, site.category, "fr")])
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert translated(site.stories[0], "de") and not translated(site.stories[0], "fr")


def test_retry_by_error_code(site, failed_run, task_queue, commit):
    run = failed_run

    assert commit(controls.retry_failed, run.pk, error_codes=[ErrorCode.TOO_LARGE]) == 2

    assert_requeued(units_of(run, site.category))
    assert_still_failed(units_of(run, site.stories[0]))
    task_queue.drain()
    run.refresh_from_db()
    assert counts(run) == {UnitStatus.SUCCEEDED: 8, UnitStatus.FAILED: 2}


def test_retry_with_filters_matching_nothing_changes_nothing(site, failed_run, task_queue, commit):
    run = failed_run

    assert commit(controls.retry_failed, run.pk, error_codes=[ErrorCode.QUOTA_EXCEEDED]) == 0
    assert commit(controls.retry_failed, run.pk, models=["demo.HomePage"]) == 0

    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert run.finished_at is not None
    assert counts(run) == {UnitStatus.SUCCEEDED: 6, UnitStatus.FAILED: 4}


def test_retry_keeps_failed_a_unit_in_flight_in_another_run(
    site, failed_run, start, task_queue, commit
):
    run = failed_run
    story = site.stories[0]
    other = start(
        scope={"pages": [{"id": story.pk, "descendants": False}]},
        source_locale="en",
        target_locales=["fr"],
    )
    task_queue.run_first("coordinate_run")
    assert unit_of(other, story, "fr").status == UnitStatus.PENDING

    assert commit(controls.retry_failed, run.pk) == 3

    assert_still_failed([unit_of(run, story, "fr")])
    assert_requeued([unit_of(run, story, "de"), *units_of(run, site.category)])
    task_queue.drain()
    run.refresh_from_db()
    other.refresh_from_db()
    assert other.status == RunStatus.SUCCEEDED
    assert run.status == RunStatus.PARTIAL
    assert counts(run) == {UnitStatus.SUCCEEDED: 9, UnitStatus.FAILED: 1}


def test_retrying_a_cancelled_run_is_refused(site, failed_run):
    Run.objects.filter(pk=failed_run.pk).update(status=RunStatus.CANCELLED)
    with pytest.raises(RunConfigurationError):
        controls.retry_failed(failed_run.pk)
    assert_still_failed(units_of(failed_run, site.stories[0]))


# --- promote a canary --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [Mode.CHANGED, Mode.REFRESH])
def test_promoted_canary_does_not_translate_or_bill_the_canary_strings_again(
    site, begin, task_queue, commit, billing, mode
):
    canary = begin(
        scope=site.scope_with_category, canary_size=3, mode=mode, publish_policy="publish"
    )
    task_queue.drain()
    canary.refresh_from_db()
    assert canary.status == RunStatus.SUCCEEDED
    sampled = list(Unit.objects.filter(run=canary, status=UnitStatus.SUCCEEDED))
    assert len(sampled) >= 3  # the sample, and the parent pages it needs
    assert len(sampled) < 10
    canary_sent = sent(billing)
    assert canary_sent
    assert canary.billed_characters == sum(len(text) for _code, text in canary_sent)
    billing.calls.clear()

    full = commit(controls.promote_canary, canary.pk)

    assert full.pk != canary.pk
    assert full.promoted_from_id == canary.pk
    assert not full.is_canary
    for name in ("scope", "mode", "publish_policy", "content_source", "slug_policy"):
        assert getattr(full, name) == getattr(canary, name), name
    assert full.translator_class == canary.translator_class
    assert full.source_locale_id == canary.source_locale_id
    assert set(full.target_locales.all()) == set(canary.target_locales.all())
    assert "coordinate_run" in task_queue.names()
    task_queue.drain()

    full.refresh_from_db()
    assert full.status == RunStatus.SUCCEEDED
    assert Unit.objects.filter(run=full).count() == 10
    full_sent = sent(billing)
    assert full_sent  # the rest of the site was translated...
    assert not set(full_sent) & set(canary_sent)  # ...but not the canary's strings again
    assert full.billed_characters == sum(len(text) for _code, text in full_sent)
    everything = set(canary_sent) | set(full_sent)
    assert canary.billed_characters + full.billed_characters == sum(
        len(text) for _code, text in everything
    )
    for obj in site.objects:
        for code in LOCALES:
            assert translated(obj, code), (obj, code)


def test_only_a_finished_canary_can_be_promoted_once(site, begin, task_queue, commit):
    canary = begin(scope=site.scope_with_category, canary_size=2)
    with pytest.raises(RunConfigurationError):
        controls.promote_canary(canary.pk)  # not finished yet
    assert Run.objects.count() == 1

    task_queue.drain()
    commit(controls.promote_canary, canary.pk)
    with pytest.raises(RunConfigurationError):
        controls.promote_canary(canary.pk)
    assert Run.objects.count() == 2


def test_a_run_that_is_not_a_canary_cannot_be_promoted(site, begin, task_queue):
    run = begin(scope=site.scope_with_category)
    task_queue.run_first("coordinate_run")
    Run.objects.filter(pk=run.pk).update(status=RunStatus.SUCCEEDED)

    with pytest.raises(RunConfigurationError):
        controls.promote_canary(run.pk)
    assert Run.objects.count() == 1
