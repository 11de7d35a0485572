"""DeepL glossaries through DeepL's faults, with the official client against the fake DeepL:
an unavailable glossary endpoint (503), a glossary deleted in the DeepL account, and what runs
do while a pair's glossary is out of date."""

from __future__ import annotations

import pytest

from tests import factories as f
from tests.engine.test_failures import run_all_but
from tests.factories import subtree
from wagtail_bulk_translate.api import preflight
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.glossary import sync
from wagtail_bulk_translate.glossary.changes import glossary_changed
from wagtail_bulk_translate.glossary.csv_io import import_csv
from wagtail_bulk_translate.management.reporting import format_summary
from wagtail_bulk_translate.models import (
    DeepLGlossary,
    GlossaryChange,
    GlossaryTranslation,
    Run,
    RunStatus,
    SyncStatus,
    UnitStatus,
)
from wagtail_bulk_translate.runs.summary import run_summary

pytestmark = pytest.mark.django_db


def de_glossary() -> DeepLGlossary:
    return DeepLGlossary.objects.get(
        source_locale__language_code="en", target_locale__language_code="de"
    )


@pytest.fixture
def garden(task_queue, locales):
    """Two articles: one mentions the lawn (a glossary term), one does not."""
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    f.article(news, "Mow the lawn", summary="A green lawn.", body=[])
    f.article(news, "Water the roses", summary="Every morning.", body=[])
    task_queue.clear()
    return subtree(home)


@pytest.fixture
def lawn(add_term, deepl_settings, task_queue, django_capture_on_commit_callbacks):
    """The term "lawn" → "Rasen", synced to DeepL."""
    term = add_term("lawn", de="Rasen")
    with django_capture_on_commit_callbacks(execute=True):
        glossary_changed()
    task_queue.drain()
    assert de_glossary().status == SyncStatus.SYNCED
    return term


def change_term(term, target: str, capture) -> None:
    GlossaryTranslation.objects.filter(term=term).update(target_term=target)
    with capture(execute=True):
        glossary_changed()


def translate(start, task_queue, scope) -> Run:
    run = start(scope=scope, source_locale="en", target_locales=["de"], publish_policy="publish")
    run_all_but(task_queue, "sync_glossaries")
    run.refresh_from_db()
    return run


def sent_texts(fake, since: int) -> set[str]:
    return {text for r in fake.translate_requests()[since:] for text in r.texts}


def test_an_unavailable_glossary_endpoint_is_retried_and_outdated_texts_are_redone(
    deepl_settings, lawn, garden, start, task_queue, django_capture_on_commit_callbacks
):
    fake = deepl_settings
    assert translate(start, task_queue, garden).status == RunStatus.SUCCEEDED

    fake.fail_glossary_next(503, times=20)
    change_term(lawn, "Wiese", django_capture_on_commit_callbacks)
    report = task_queue.run_first("sync_glossaries")

    row = de_glossary()
    assert row.status == SyncStatus.PENDING  # still waiting, not failed
    assert "unavailable" in row.message and "refused" not in row.message
    assert "Service unavailable" in row.message and "Trying again at" in row.message
    assert report["retry_in"] == sync.RETRY_DELAYS[0]
    assert task_queue.plugin_names().count("sync_glossaries") == 1  # the retry

    # A "changed" run meanwhile redoes the texts the term touches, with the previous terms,
    # and says so.
    before = len(fake.translate_requests())
    run = translate(start, task_queue, garden)
    assert sent_texts(fake, before) == {"Mow the lawn", "A green lawn."}
    assert {r.glossary_id for r in fake.translate_requests()[before:]} == {row.glossary_id}
    assert run.status == RunStatus.SUCCEEDED

    # DeepL is back: the queued retry syncs, and the next "changed" run redoes exactly those.
    fake.glossary_faults.clear()
    task_queue.run_first("sync_glossaries")
    synced = de_glossary()
    assert synced.status == SyncStatus.SYNCED
    assert fake.glossary_entries(synced.glossary_id) == {"lawn": "Wiese"}
    before = len(fake.translate_requests())
    translate(start, task_queue, garden)
    assert sent_texts(fake, before) == {"Mow the lawn", "A green lawn."}
    assert {r.glossary_id for r in fake.translate_requests()[before:]} == {synced.glossary_id}

    before = len(fake.translate_requests())
    translate(start, task_queue, garden)
    assert sent_texts(fake, before) == set()  # up to date now


def test_a_sync_that_keeps_meeting_an_unavailable_deepl_gives_up_and_says_so(
    deepl_settings, add_term
):
    add_term("lawn", de="Rasen")
    deepl_settings.fail_glossary_next(503, times=50)

    report = sync.sync_deepl_glossaries(attempt=len(sync.RETRY_DELAYS))

    assert report.retry_in is None
    row = de_glossary()
    assert row.status == SyncStatus.FAILED
    assert "unavailable" in row.message


def test_a_refused_glossary_fails_at_once(deepl_settings, add_term, task_queue):
    add_term("lawn", de="Rasen")
    deepl_settings.fail_glossary_next(400, times=5, message="Invalid glossary entries")

    sync.sync_deepl_glossaries()

    row = de_glossary()
    assert row.status == SyncStatus.FAILED
    assert "refused" in row.message
    assert "sync_glossaries" not in task_queue.plugin_names()


def test_a_glossary_deleted_in_deepl_is_created_again_and_the_request_sent_again(
    deepl_settings, lawn, garden, start, task_queue
):
    fake = deepl_settings
    lost = de_glossary().glossary_id
    fake.forget_glossary(lost)

    run = translate(start, task_queue, garden)

    assert run.status == RunStatus.SUCCEEDED
    assert not run.units.filter(status=UnitStatus.FAILED).exists()
    recreated = de_glossary()
    assert recreated.glossary_id not in ("", lost)
    assert fake.glossary_entries(recreated.glossary_id) == {"lawn": "Rasen"}
    answered = fake.translate_requests(status=200)
    assert answered and {r.glossary_id for r in answered} == {recreated.glossary_id}
    assert len(fake.translate_requests(status=404)) == 1  # once, not per request


def test_sync_now_checks_that_deepl_still_has_each_glossary(
    deepl_settings, lawn, task_queue, django_capture_on_commit_callbacks
):
    fake = deepl_settings
    lost = de_glossary().glossary_id
    fake.forget_glossary(lost)

    with django_capture_on_commit_callbacks(execute=True):
        glossary_changed(check_remote=True)  # the admin's "Sync now"
    task_queue.drain()

    row = de_glossary()
    assert row.status == SyncStatus.SYNCED
    assert row.glossary_id != lost and row.glossary_id in fake.glossaries
    assert any(r.method == "GET" and r.path == f"/v2/glossaries/{lost}" for r in fake.requests)


def test_import_csv_records_the_change_and_syncs_like_the_admin(
    deepl_settings, locales, task_queue, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        import_csv(
            "source_locale,term,case_sensitive,never_translate,target_locale,translation\n"
            "en,lawn,no,no,de,Rasen\n"
        )

    assert GlossaryChange.objects.filter(term="lawn", target_locale=locales["de"]).exists()
    assert task_queue.plugin_names() == ["sync_glossaries"]
    task_queue.drain()
    assert de_glossary().status == SyncStatus.SYNCED


def test_runs_warn_while_a_glossary_is_out_of_date(
    deepl_settings, lawn, garden, start, task_queue, django_capture_on_commit_callbacks
):
    deepl_settings.fail_glossary_next(503, times=20)
    change_term(lawn, "Wiese", django_capture_on_commit_callbacks)
    task_queue.run_first("sync_glossaries")

    estimate = preflight(garden, "en", ["de"])
    assert any("glossary en→de waits to sync" in w for w in estimate.warnings)
    run = start(scope=garden, source_locale="en", target_locales=["de"])
    summary = run_summary(run)
    assert any("en→de waits to sync" in w for w in summary["glossary_warnings"])
    assert "Warning: The DeepL glossary en→de waits to sync" in format_summary(summary)


def test_runs_can_wait_for_a_glossary_to_sync(
    deepl_settings, lawn, garden, start, task_queue, conf, django_capture_on_commit_callbacks
):
    conf(OUTDATED_GLOSSARY="wait")
    fake = deepl_settings
    fake.fail_glossary_next(503, times=20)
    change_term(lawn, "Wiese", django_capture_on_commit_callbacks)
    task_queue.run_first("sync_glossaries")

    before = len(fake.translate_requests())
    run = translate(start, task_queue, garden)
    assert run.status == RunStatus.PAUSED
    assert run.error_code == ErrorCode.GLOSSARY_SYNCING
    assert sent_texts(fake, before) == set()  # nothing translated with the previous terms

    fake.glossary_faults.clear()
    task_queue.run_first("sync_glossaries")  # synced: the run goes on, with the new terms
    run_all_but(task_queue, "sync_glossaries")
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    lawn_requests = [r for r in fake.translate_requests() if "Mow the lawn" in r.texts]
    assert lawn_requests[-1].glossary_id == de_glossary().glossary_id
