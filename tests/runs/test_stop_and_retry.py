"""Stopping a run on a configuration error, and fixing the settings then retrying or resuming."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.engine.test_coordinator import run_coordinator
from tests.translator_doubles import RecordingTranslator, translator_setting
from wagtail_bulk_translate.engine import claims
from wagtail_bulk_translate.engine.claims import Claim
from wagtail_bulk_translate.engine.pauses import pause_run, resume_run
from wagtail_bulk_translate.engine.worker import process_claim
from wagtail_bulk_translate.errors import ErrorCode, TranslatorConfigError
from wagtail_bulk_translate.models import Run, RunStatus, Unit, UnitStatus
from wagtail_bulk_translate.runs import controls
from wagtail_bulk_translate.translators.pins import RunTranslators

pytestmark = pytest.mark.django_db


@pytest.fixture
def retry_failed(django_capture_on_commit_callbacks):
    """retry_failed() as the admin calls it, its on-commit scheduling executed."""

    def _retry(run_id: int) -> int:
        with django_capture_on_commit_callbacks(execute=True):
            return controls.retry_failed(run_id)

    return _retry


@pytest.fixture
def resume(django_capture_on_commit_callbacks):
    def _resume(run_id: int) -> bool:
        with django_capture_on_commit_callbacks(execute=True):
            return resume_run(run_id)

    return _resume


MESSAGE = "Authorization failed (403): check the translator's key."


def forbidden(text: str) -> str:
    raise TranslatorConfigError(MESSAGE)


def two_workers_hit_the_403(run: Run) -> None:
    """Two workers each hold a claim when the translator starts answering 403."""
    translator = RunTranslators(run)
    first = claims.claim_units(run.pk, 2)
    second = claims.claim_units(run.pk, 2)
    assert first[1] and second[1]
    for token, units in (first, second):
        try:
            process_claim(Claim(run, token), translator, units)
        except Exception as err:  # ClaimAborted: the worker gives its claim back, as process_run
            assert type(err).__name__ == "ClaimAborted"
            claims.release_claim(token)


def test_a_configuration_stop_leaves_no_unit_pending_and_retry_brings_every_unit_back(
    site, begin, task_queue, recording_translator, retry_failed
):
    recording_translator.overrides.update({s.title: forbidden for s in site.objects[:4]})
    run = begin(locales=("fr", "de"))
    run_coordinator(task_queue)

    two_workers_hit_the_403(run)

    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error_code == ErrorCode.AUTH_CONFIG
    statuses = Counter(Unit.objects.filter(run=run).values_list("status", flat=True))
    assert UnitStatus.PENDING not in statuses, statuses
    assert UnitStatus.RUNNING not in statuses, statuses

    # The key is fixed: retry brings back every unit the stop failed or cancelled.
    recording_translator.overrides.clear()
    queued = retry_failed(run.pk)
    assert queued == Unit.objects.filter(run=run).count() == 8
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, list(
        run.units.values_list("status", "error_code", "error_message")
    )


def test_retry_brings_back_units_the_janitor_cancelled_after_a_configuration_stop(
    site, begin, task_queue, recording_translator, retry_failed
):
    from wagtail_bulk_translate.engine.janitor import cancel_orphaned_units

    recording_translator.overrides.update({s.title: forbidden for s in site.objects[:4]})
    run = begin(locales=("fr", "de"))
    run_coordinator(task_queue)
    two_workers_hit_the_403(run)
    # A unit released after the stop by a worker on an older version, found by the janitor.
    Unit.objects.filter(run=run, status=UnitStatus.CANCELLED).update(status=UnitStatus.PENDING)
    cancel_orphaned_units()

    recording_translator.overrides.clear()
    assert retry_failed(run.pk) == 8
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


# --- 9.5: resume and retry take the translator settings as they are now ---------------------


def urls_called() -> list[str | None]:
    return [url for url, _texts in RecordingTranslator.url_calls]


@pytest.fixture
def server_urls(settings, recording_translator, monkeypatch):
    """The recording translator answers 403 when its SERVER_URL is the "broken" server."""
    RecordingTranslator.url_calls = []
    original = RecordingTranslator.translate_texts

    def translate_texts(self, source_locale, target_locale, texts):
        url = self.options.get("SERVER_URL")
        RecordingTranslator.url_calls.append((url, list(texts)))
        if url == "https://broken.example":
            raise TranslatorConfigError(MESSAGE)
        return original(self, source_locale, target_locale, texts)

    monkeypatch.setattr(RecordingTranslator, "translate_texts", translate_texts)

    def use(url: str) -> None:
        settings.WAGTAIL_BULK_TRANSLATE = {
            **settings.WAGTAIL_BULK_TRANSLATE,
            "TRANSLATOR": translator_setting(SERVER_URL=url, AUTH_KEY="secret-" + url[-3:]),
        }

    return use


def test_retry_uses_the_translator_settings_as_they_are_now(
    site, begin, task_queue, server_urls, retry_failed
):
    server_urls("https://broken.example")
    run = begin(locales=("fr",))
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert set(urls_called()) == {"https://broken.example"}

    server_urls("https://fixed.example")
    RecordingTranslator.url_calls = []
    assert retry_failed(run.pk) == 4
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert set(urls_called()) == {"https://fixed.example"}
    assert run.translator_options == {"SERVER_URL": "https://fixed.example"}  # no secret
    assert run.translator_changed_at is not None
    assert "SERVER_URL" in run.translator_change
    assert "secret" not in run.translator_change


def test_resume_uses_the_translator_settings_as_they_are_now(
    site, begin, task_queue, server_urls, resume
):
    server_urls("https://old.example")
    run = begin(locales=("fr",))
    run_coordinator(task_queue)
    pause_run(run.pk)
    server_urls("https://new.example")

    assert resume(run.pk)
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert set(urls_called()) == {"https://new.example"}
    assert "SERVER_URL" in run.translator_change


def test_unchanged_settings_are_not_reported_as_a_change(
    site, begin, task_queue, server_urls, resume
):
    server_urls("https://same.example")
    run = begin(locales=("fr",))
    run_coordinator(task_queue)
    pause_run(run.pk)
    assert resume(run.pk)
    task_queue.drain()
    run.refresh_from_db()
    assert run.translator_changed_at is None
    assert run.translator_change == ""
