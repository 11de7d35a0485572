"""The DeepL glossary sync, through the official client, against the fake DeepL server."""

from __future__ import annotations

import pytest

from wagtail_bulk_translate.glossary.changes import glossary_changed
from wagtail_bulk_translate.glossary.sync import sync_deepl_glossaries
from wagtail_bulk_translate.models import DeepLGlossary, GlossaryTranslation, SyncStatus

pytestmark = pytest.mark.django_db


def pair(source: str, target: str) -> DeepLGlossary:
    return DeepLGlossary.objects.get(
        source_locale__language_code=source, target_locale__language_code=target
    )


def glossary_posts(fake) -> list:
    return [r for r in fake.requests if r.path == "/v2/glossaries" and r.method == "POST"]


def test_creates_a_glossary_per_pair_with_never_translate_terms_mapped_to_themselves(
    deepl_settings, add_term
):
    fake = deepl_settings
    add_term("pruning shears", de="Gartenschere", fr="sécateur")
    add_term("ACME", never=True)

    report = sync_deepl_glossaries()

    assert report.outcomes == {"en→de": "synced", "en→es": "synced", "en→fr": "synced"}
    de = pair("en", "de")
    assert de.entry_count == 2
    assert fake.glossary_entries(de.glossary_id) == {
        "ACME": "ACME",
        "pruning shears": "Gartenschere",
    }
    assert fake.glossaries[de.glossary_id]["target_lang"] == "de"
    assert fake.glossary_entries(pair("en", "es").glossary_id) == {"ACME": "ACME"}


def test_unchanged_terms_are_not_sent_again(deepl_settings, add_term):
    add_term("lawn", de="Rasen")
    sync_deepl_glossaries()
    created = len(glossary_posts(deepl_settings))

    sync_deepl_glossaries()

    assert len(glossary_posts(deepl_settings)) == created


def test_a_changed_term_replaces_the_glossary_and_deletes_the_old_one(deepl_settings, add_term):
    fake = deepl_settings
    add_term("lawn", de="Wiese")
    sync_deepl_glossaries()
    old_id = pair("en", "de").glossary_id
    GlossaryTranslation.objects.filter(target_term="Wiese").update(target_term="Rasen")

    sync_deepl_glossaries()

    new = pair("en", "de")
    assert new.glossary_id != old_id
    assert old_id not in fake.glossaries
    assert fake.glossary_entries(new.glossary_id) == {"lawn": "Rasen"}
    assert new.status == SyncStatus.SYNCED


def test_a_pair_that_lost_its_terms_deletes_its_glossary(deepl_settings, add_term):
    term = add_term("lawn", de="Rasen")
    sync_deepl_glossaries()
    old_id = pair("en", "de").glossary_id
    term.delete()

    sync_deepl_glossaries()

    assert (pair("en", "de").status, pair("en", "de").glossary_id) == (SyncStatus.EMPTY, "")
    assert old_id not in deepl_settings.glossaries


def test_a_failed_sync_is_recorded_with_deepls_message_and_keeps_the_old_glossary(
    deepl_settings, add_term
):
    fake = deepl_settings
    add_term("lawn", de="Wiese")
    sync_deepl_glossaries()
    old_id = pair("en", "de").glossary_id
    GlossaryTranslation.objects.update(target_term="Rasen")
    fake.fail_glossary_next(400, message="Invalid glossary entries", times=10)

    sync_deepl_glossaries()

    failed = pair("en", "de")
    assert failed.status == SyncStatus.FAILED
    assert "Invalid glossary entries" in failed.message
    assert failed.glossary_id == old_id  # runs keep the previous terms meanwhile
    fake.glossary_faults.clear()

    sync_deepl_glossaries()  # the next sync retries it

    assert pair("en", "de").status == SyncStatus.SYNCED


def test_a_pair_deepl_has_no_glossaries_for_is_marked_unsupported(deepl_settings, add_term):
    add_term("Rasen", "de", es="césped")  # the fake has no de→es glossaries

    sync_deepl_glossaries()

    unsupported = pair("de", "es")
    assert unsupported.status == SyncStatus.UNSUPPORTED
    assert "DeepL has no glossaries from" in unsupported.message
    assert pair("de", "en").status == SyncStatus.EMPTY


def test_a_translator_without_glossaries_syncs_nothing(settings, add_term):
    add_term("lawn", de="Rasen")  # the pseudo translator is configured

    assert sync_deepl_glossaries().outcomes == {}
    assert not DeepLGlossary.objects.exists()


def test_a_change_marks_the_pairs_pending_and_queues_one_sync_after_commit(
    deepl_settings, add_term, task_queue, django_capture_on_commit_callbacks
):
    add_term("lawn", de="Rasen")
    sync_deepl_glossaries()

    with django_capture_on_commit_callbacks(execute=True):
        glossary_changed(pair("en", "de").source_locale_id)

    assert pair("en", "de").status == SyncStatus.PENDING
    assert task_queue.names() == ["sync_glossaries"]
    task_queue.drain()
    assert pair("en", "de").status == SyncStatus.SYNCED


def test_of_two_syncs_replacing_a_pair_at_once_the_later_deletes_its_own_glossary(
    deepl_settings, add_term
):
    from wagtail_bulk_translate.glossary.sync import replace
    from wagtail_bulk_translate.translators.deepl import DeepLTranslator

    fake = deepl_settings
    add_term("lawn", de="Rasen")
    sync_deepl_glossaries()
    first, second = pair("en", "de"), pair("en", "de")  # both syncs read the same row
    glossaries = DeepLTranslator({"AUTH_KEY": "k", "SERVER_URL": fake.url}).glossaries()
    ids = [glossaries.create("g", ("EN", "DE"), {"lawn": "Rasen"}) for _ in range(2)]

    replace(glossaries, first, ids[0])
    replace(glossaries, second, ids[1])

    assert pair("en", "de").glossary_id == ids[0]
    assert set(fake.glossaries) == {ids[0]}  # the old one and the loser's are both deleted
