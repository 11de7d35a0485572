"""Failure handling: transient retries with back-off, permanent failures, quota pauses,
configuration errors that stop the run, and the stale-source guard.

Provider failures are simulated with RecordingTranslator overrides that raise (a closure with a
counter fails N times, then succeeds). Back-off is 0 unless a test checks the back-off itself:
the DummyBackend runs deferred tasks at once, before a backed-off unit is claimable again.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import redis
from django.db import OperationalError
from django.db.models.functions import Now
from django.utils import timezone
from wagtail.models import Page

from tests.lookups import counts, unit_of
from tests.task_queue import UNREACHABLE_BROKER
from wagtail_bulk_translate import api as controls
from wagtail_bulk_translate import schedule, tasks
from wagtail_bulk_translate.engine import claims, failures, finish, ledger
from wagtail_bulk_translate.errors import (
    AnswerLostError,
    ErrorCode,
    QuotaExceededError,
    TransientTranslatorError,
    TranslatorConfigError,
    TranslatorError,
    UnitError,
)
from wagtail_bulk_translate.models import ContentSource, Run, RunStatus, Unit, UnitStatus
from wagtail_bulk_translate.translators.pseudo import pseudo_localize

pytestmark = pytest.mark.django_db

FR = ("fr",)  # the runs of this module translate into French only


# --- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture(autouse=True)
def failure_settings(conf):
    # One object per claim that never grows: each request holds one object's texts, so a
    # request that fails is that object's alone (a failed request fails every unit it served).
    conf(RETRY_BACKOFF_SECONDS=0, MAX_ATTEMPTS=3, UNITS_PER_CLAIM=1, MAX_UNITS_PER_CLAIM=1)


def flaky(error: Exception, times: int, value: str = "Histoire 0"):
    """An override that raises ``error`` on its first ``times`` calls, then translates."""
    calls = {"n": 0}

    def override(text: str) -> str:
        calls["n"] += 1
        if calls["n"] <= times:
            raise error
        return value

    override.calls = calls
    return override


def run_until(task_queue, condition, max_tasks: int = 200) -> None:
    """Run queued tasks one by one until ``condition()`` holds."""
    for _ in range(max_tasks):
        if condition():
            return
        assert task_queue.pending(), "the queue ran dry before the condition held"
        task_queue.run_next()
    raise AssertionError("condition never held")


def run_all_but(task_queue, name: str, max_tasks: int = 200) -> None:
    """Run every queued task except those called ``name`` (they stay queued)."""
    for _ in range(max_tasks):
        others = [r for r in task_queue.backend.results if r.task.name != name]
        if not others:
            return
        task_queue.run_first(others[0].task.name)
    raise AssertionError("queue did not settle")


def target(obj, code: str = "fr"):
    return (
        Page.objects.filter(translation_key=obj.translation_key, locale__language_code=code)
        .specific()
        .first()
    )


def database_now():
    """The database clock (on PostgreSQL, the start of the test's transaction)."""
    return Run.objects.annotate(now=Now()).values_list("now", flat=True).first()


def times_sent(recording_translator, text: str) -> int:
    return recording_translator.texts_sent().count(text)


# --- transient and permanent failures -----------------------------------------------------------


TRANSIENT_ERRORS = [
    pytest.param(TransientTranslatorError("Too many requests.", ErrorCode.RATE_LIMITED), id="429"),
    pytest.param(TransientTranslatorError("Server error (503)."), id="5xx"),
    pytest.param(ConnectionError("Connection reset by peer"), id="connection"),
    pytest.param(TimeoutError("Read timed out"), id="timeout"),
    pytest.param(UnitError(ErrorCode.TRANSLATOR_ERROR, "Flaky.", transient=True), id="unit"),
    pytest.param(OperationalError("database is locked"), id="db-busy"),
]


@pytest.mark.parametrize("error", TRANSIENT_ERRORS)
def test_transient_errors_are_classified_as_retryable(error):
    failure = failures.describe_exception(error)
    assert failure.transient
    assert failure.code
    assert failure.message


def test_an_error_raised_while_queueing_a_task_is_the_task_queue_and_is_retried(settings):
    settings.TASKS = {"default": {"BACKEND": UNREACHABLE_BROKER}}
    with pytest.raises(redis.exceptions.ConnectionError) as caught:
        tasks.process_units.enqueue(1)

    failure = failures.describe_exception(caught.value)

    assert failure.transient
    assert "task queue could not be reached" in failure.message
    assert not failures.describe_exception(redis.exceptions.ConnectionError("a bug")).transient


@pytest.mark.parametrize(
    "error",
    [
        TranslatorError("Bad request."),
        UnitError(ErrorCode.VALIDATION_ERROR, "Invalid."),
        ValueError("a bug"),
        KeyError("a bug"),
    ],
)
def test_other_errors_are_not_retried(error):
    assert not failures.describe_exception(error).transient


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(
            TransientTranslatorError("Too many requests.", ErrorCode.RATE_LIMITED), id="429"
        ),
        pytest.param(ConnectionError("Connection reset by peer"), id="connection"),
        pytest.param(OperationalError("database is locked"), id="db-busy"),
    ],
)
def test_transient_error_is_retried_and_the_unit_succeeds(
    site, begin, task_queue, recording_translator, error
):
    recording_translator.overrides["Story 0"] = flaky(error, times=1)
    run = begin(locales=FR)
    task_queue.drain()

    unit = unit_of(run, site.story)
    assert unit.status == UnitStatus.SUCCEEDED
    # A busy database is not the unit's fault: its retry does not use up an attempt.
    assert unit.attempts == (1 if isinstance(error, OperationalError) else 2)
    assert unit.error_code == ""
    assert unit.error_message == ""
    assert times_sent(recording_translator, "Story 0") == 2
    assert target(site.story).title == "Histoire 0"
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert counts(run) == {UnitStatus.SUCCEEDED: 4}


@pytest.mark.parametrize(
    ("error", "code"),
    [
        pytest.param(
            TranslatorError("The translator rejected the request."),
            ErrorCode.TRANSLATOR_ERROR,
            id="translator",
        ),
        pytest.param(
            UnitError(ErrorCode.INVALID_MARKUP, "Broken markup."),
            ErrorCode.INVALID_MARKUP,
            id="unit",
        ),
        pytest.param(ValueError("unexpected"), ErrorCode.INTERNAL_ERROR, id="bug"),
    ],
)
def test_permanent_error_fails_the_unit_at_once(
    site, begin, task_queue, recording_translator, error, code
):
    recording_translator.overrides["Story 0"] = flaky(error, times=99)
    run = begin(locales=FR)
    task_queue.drain()

    unit = unit_of(run, site.story)
    assert unit.status == UnitStatus.FAILED
    assert unit.attempts == 1
    assert unit.error_code == code
    assert unit.error_message
    assert times_sent(recording_translator, "Story 0") == 1
    assert target(site.story) is None
    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert counts(run) == {UnitStatus.SUCCEEDED: 3, UnitStatus.FAILED: 1}


def test_transient_error_on_every_attempt_fails_after_max_attempts(
    site, begin, task_queue, recording_translator
):
    error = TransientTranslatorError("Too many requests.", ErrorCode.RATE_LIMITED)
    recording_translator.overrides["Story 0"] = flaky(error, times=99)
    run = begin(locales=FR)
    task_queue.drain()

    unit = unit_of(run, site.story)
    assert unit.status == UnitStatus.FAILED
    assert unit.attempts == 3
    assert unit.error_code == ErrorCode.RATE_LIMITED
    assert unit.error_message.startswith("Too many requests.")
    assert "gave up after 3 attempts" in unit.error_message
    assert unit.finished_at is not None
    assert times_sent(recording_translator, "Story 0") == 3
    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert counts(run) == {UnitStatus.SUCCEEDED: 3, UnitStatus.FAILED: 1}


def test_transient_failure_waits_for_its_back_off(
    site, begin, task_queue, recording_translator, conf
):
    conf(RETRY_BACKOFF_SECONDS=30)
    recording_translator.overrides["Story 0"] = flaky(TransientTranslatorError("503."), times=1)
    run = begin(locales=FR)
    task_queue.drain(max_tasks=100)  # ends: one deferred wake-up, not a busy loop

    unit = unit_of(run, site.story)
    assert unit.status == UnitStatus.PENDING
    assert unit.attempts == 1
    assert unit.lease_token is None
    assert unit.error_code == ErrorCode.TRANSLATOR_ERROR
    assert "retrying" in unit.error_message
    back_off = (unit.available_after - database_now()).total_seconds()
    assert 25 < back_off <= 30
    assert times_sent(recording_translator, "Story 0") == 1
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    assert counts(run) == {UnitStatus.SUCCEEDED: 3, UnitStatus.PENDING: 1}
    assert run.wakeup_at is not None
    assert abs((run.wakeup_at - unit.available_after).total_seconds()) < 1
    assert claims.claim_units(run.pk, 10)[1] == []  # not claimable before its back-off

    # Once the back-off has passed, the next worker picks it up.
    Unit.objects.filter(pk=unit.pk).update(available_after=timezone.now() - timedelta(hours=1))
    schedule.continue_worker(run.pk)
    task_queue.drain()
    unit.refresh_from_db()
    assert unit.status == UnitStatus.SUCCEEDED
    assert unit.attempts == 2


def test_back_off_doubles_up_to_its_maximum(conf):
    conf(RETRY_BACKOFF_SECONDS=15, RETRY_BACKOFF_MAX_SECONDS=100)
    assert [failures.backoff_seconds(n) for n in (1, 2, 3, 4, 5)] == [15, 30, 60, 100, 100]


# --- quota exhausted: the run pauses -----------------------------------------------------------


def test_quota_exhausted_pauses_the_run_and_it_resumes_once_the_quota_is_back(
    site, begin, task_queue, recording_translator, conf
):
    conf(UNITS_PER_CLAIM=10)  # one claim holds every unit
    quota = {"left": False}

    def over_quota(text):
        if not quota["left"]:
            raise QuotaExceededError()
        return "Histoire 0"

    recording_translator.overrides["Story 0"] = over_quota
    run = begin(locales=FR)
    run_until(task_queue, lambda: Run.objects.get(pk=run.pk).status == RunStatus.PAUSED)

    run.refresh_from_db()
    assert run.error_code == ErrorCode.QUOTA_EXCEEDED
    assert "quota" in run.error_message
    # Parent pages went in the claim's first wave (their children wait for them to be written).
    assert not Unit.objects.filter(run=run, status=UnitStatus.FAILED).exists()
    for unit in Unit.objects.filter(run=run).exclude(status=UnitStatus.SUCCEEDED):
        assert unit.status == UnitStatus.PENDING  # not failed
        assert unit.attempts == 0  # and no attempt used
        assert unit.lease_token is None
    assert task_queue.names().count("retry_after_quota") == 1

    # While paused, no worker translates anything.
    sent = len(recording_translator.calls)
    run_all_but(task_queue, "retry_after_quota")
    assert len(recording_translator.calls) == sent
    assert Run.objects.get(pk=run.pk).status == RunStatus.PAUSED

    # The scheduled retry finds the quota still used up: paused again, next retry scheduled.
    assert task_queue.run_first("retry_after_quota") == {"resumed": True}
    run_until(task_queue, lambda: Run.objects.get(pk=run.pk).status == RunStatus.PAUSED)
    run_all_but(task_queue, "retry_after_quota")
    assert task_queue.names() == ["retry_after_quota"]
    pending = Unit.objects.filter(run=run, status=UnitStatus.PENDING)
    assert set(pending.values_list("attempts", flat=True)) == {0}

    # The quota is back: the next retry resumes the run and it completes.
    quota["left"] = True
    assert task_queue.run_first("retry_after_quota") == {"resumed": True}
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert run.error_code == ""
    assert counts(run) == {UnitStatus.SUCCEEDED: 4}
    assert set(Unit.objects.filter(run=run).values_list("attempts", flat=True)) == {1}
    assert target(site.story).title == "Histoire 0"


def test_quota_retry_leaves_a_run_paused_by_an_editor_alone(site, begin, task_queue):
    run = begin(locales=FR)
    task_queue.run_first("coordinate_run")
    controls.pause_run(run.pk)

    assert run_task_direct(run.pk) == {"resumed": False}
    assert Run.objects.get(pk=run.pk).status == RunStatus.PAUSED


def run_task_direct(run_id: int) -> dict:
    return tasks.retry_after_quota.func(run_id)


# --- configuration errors: the run stops -------------------------------------------------------


def test_config_error_stops_the_run_with_one_clear_message(
    site, begin, task_queue, recording_translator
):
    message = "Authentication failed: check the translator's API key."

    def bad_key(text):
        raise TranslatorConfigError(message)

    recording_translator.overrides["Home"] = bad_key
    run = begin(locales=("fr", "de"))
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error_code == ErrorCode.AUTH_CONFIG
    assert run.error_message == message
    assert run.finished_at is not None
    assert len(recording_translator.calls) == 1  # once, not once per unit
    units = list(Unit.objects.filter(run=run))
    assert len(units) == 8
    failed = [u for u in units if u.status == UnitStatus.FAILED]
    assert len(failed) == 1
    assert failed[0].object_key == site.home.translation_key
    assert failed[0].error_code == ErrorCode.AUTH_CONFIG
    others = [u for u in units if u.status != UnitStatus.FAILED]
    assert {(u.status, u.error_code) for u in others} == {
        (UnitStatus.CANCELLED, ErrorCode.AUTH_CONFIG)
    }, sorted((u.object_id, u.target_locale_id, u.status, u.error_code) for u in others)
    for unit in others:
        assert message in unit.error_message
    assert not finish.stop_run(run.pk, ErrorCode.AUTH_CONFIG, message)  # already over


# --- a source edited mid-unit ------------------------------------------------------------------


@pytest.mark.parametrize("content_source", [ContentSource.LIVE, ContentSource.LATEST_DRAFT])
def test_source_edited_mid_unit_is_not_written_stale_and_is_retried(
    site, begin, task_queue, recording_translator, content_source
):
    edited = "Story zero, edited"

    def edit_source_while_translating(text):
        if times_sent(recording_translator, "Story 0") == 1:  # first attempt only
            page = Page.objects.get(pk=site.story.pk).specific
            page.title = edited
            if content_source == ContentSource.LIVE:
                page.save_revision().publish()
            else:
                page.save_revision()  # a new draft
        return "Histoire 0"

    recording_translator.overrides["Story 0"] = edit_source_while_translating
    run = begin(locales=FR, content_source=content_source)
    run_until(task_queue, lambda: changed_source_reported(run, site.story))

    unit = unit_of(run, site.story)
    assert unit.status == UnitStatus.PENDING
    assert unit.attempts == 1
    assert "retrying" in unit.error_message
    assert target(site.story) is None  # the stale translation was not written
    task_queue.drain()

    unit.refresh_from_db()
    assert unit.status == UnitStatus.SUCCEEDED
    assert unit.attempts == 2
    assert edited in recording_translator.texts_sent()
    written = target(site.story)
    assert written.title == pseudo_localize(edited, "fr")
    assert written.get_latest_revision_as_object().title == pseudo_localize(edited, "fr")
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def changed_source_reported(run: Run, obj) -> bool:
    return Unit.objects.filter(
        run=run, object_key=obj.translation_key, error_code=ErrorCode.SOURCE_CHANGED
    ).exists()


def test_a_request_that_failed_without_an_answer_is_shown_as_sent_without_answer(
    site, begin, task_queue, recording_translator
):
    # A dropped connection: the texts went out, the provider may have billed them.
    recording_translator.overrides["Story 0"] = flaky(AnswerLostError("Dropped."), times=1)
    run = begin(locales=FR)
    task_queue.drain()

    summary = controls.run_summary(run)
    lost = summary["sent_without_answer"]
    assert lost["texts"] >= 1
    assert lost["characters"] >= len("Story 0")
    assert summary["status"] == RunStatus.SUCCEEDED  # sent again, and answered
    assert "sent without an answer: " in controls.format_summary(summary)


def test_a_refused_request_is_not_sent_without_answer(
    site, begin, task_queue, recording_translator
):
    # A 503 or a 429 is an answer: the provider processed (and billed) nothing.
    recording_translator.overrides["Story 0"] = flaky(TransientTranslatorError("503."), times=1)
    run = begin(locales=FR)
    task_queue.drain()

    summary = controls.run_summary(run)
    assert summary["status"] == RunStatus.SUCCEEDED
    assert summary["sent_without_answer"] == {"texts": 0, "characters": 0}
    assert "sent without an answer" not in controls.format_summary(summary)


def test_units_handed_back_on_a_busy_database_come_back_though_the_release_meets_it_too(
    site, begin, task_queue, recording_translator, monkeypatch
):
    # SQLite without the install section's options: the write that failed on "database is
    # locked" is followed by a release that meets the lock again.
    monkeypatch.setattr(ledger, "STORE_BACKOFF_SECONDS", 0)
    original = failures.give_back
    collisions = {"left": 3}

    def busy_then_free(unit, token):
        if collisions["left"]:
            collisions["left"] -= 1
            raise OperationalError("database is locked")
        original(unit, token)

    monkeypatch.setattr(failures, "give_back", busy_then_free)
    recording_translator.overrides["Story 0"] = flaky(OperationalError("database is locked"), 1)
    run = begin(locales=FR)
    task_queue.drain()  # a task that raised would fail the test here

    assert collisions["left"] == 0
    unit = unit_of(run, site.story)
    assert unit.status == UnitStatus.SUCCEEDED
    assert unit.attempts == 1  # the busy database was not the unit's fault
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def test_a_refusal_message_with_a_nul_byte_is_recorded_without_it(
    site, begin, task_queue, recording_translator
):
    recording_translator.overrides["Story 0"] = flaky(TranslatorError("The model said:\x00 no."), 9)
    run = begin(locales=FR)
    task_queue.drain()

    unit = unit_of(run, site.story)
    assert unit.status == UnitStatus.FAILED
    assert unit.error_message.startswith("The model said: no.")
