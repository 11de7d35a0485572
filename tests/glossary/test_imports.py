"""Glossary CSV imports in the background: checked on upload, written by a task, logged once."""

from __future__ import annotations

import time

import pytest
from wagtail.models import ModelLogEntry

from wagtail_bulk_translate.glossary.csv_io import GlossaryImportError, export_csv, export_queryset
from wagtail_bulk_translate.glossary.imports import IMPORTED, queue_import, run_import
from wagtail_bulk_translate.models import (
    GlossaryImport,
    GlossaryImportStatus,
    GlossaryTerm,
    GlossaryTranslation,
)

HEADER = "source_locale,term,case_sensitive,never_translate,target_locale,translation\n"


def queue(task_queue, data, user=None):
    with task_queue.capture_on_commit(execute=True):
        return queue_import(data, "terms.csv", user)


def test_a_bad_file_is_refused_on_upload_and_nothing_is_stored(locales, task_queue):
    with pytest.raises(GlossaryImportError):
        queue(task_queue, HEADER + "xx,lawn,no,no,,\n")

    assert not GlossaryImport.objects.exists()
    assert task_queue.plugin_names() == []


def test_the_task_writes_the_terms_and_logs_the_import_once(locales, task_queue):
    record = queue(task_queue, HEADER + "en,lawn,no,no,de,Rasen\nen,hedge,no,no,de,Hecke\n")
    assert task_queue.plugin_names() == ["import_glossary"]

    task_queue.drain()

    record.refresh_from_db()
    assert record.status == GlossaryImportStatus.SUCCEEDED
    assert (record.terms_created, record.translations_written) == (2, 2)
    assert record.content == ""  # not kept once imported
    assert ModelLogEntry.objects.filter(action=IMPORTED).count() == 1
    assert run_import(record.pk) == "skipped"  # delivered twice: written once


def test_a_file_that_became_wrong_while_queued_fails_writing_nothing(locales, task_queue):
    record = queue(task_queue, HEADER + "en,lawn,no,no,fr,pelouse\n")
    locales["fr"].delete()

    task_queue.drain()

    record.refresh_from_db()
    assert record.status == GlossaryImportStatus.FAILED
    assert "is not a locale of this site" in record.errors[0]
    assert not GlossaryTerm.objects.exists()


TERMS = 50_000  # the documented maximum


def test_an_export_of_the_most_terms_imports_back_in_seconds(locales, task_queue):
    en, de, fr = locales["en"], locales["de"], locales["fr"]
    terms = GlossaryTerm.objects.bulk_create(
        GlossaryTerm(source_locale=en, source_term=f"term {i}") for i in range(TERMS)
    )
    GlossaryTranslation.objects.bulk_create(
        GlossaryTranslation(term=term, target_locale=locale, target_term=f"{locale} {term}")
        for term in terms
        for locale in (de, fr)
    )
    exported = export_csv(export_queryset())
    GlossaryTranslation.objects.filter(target_locale=fr).update(target_term="changed")

    began = time.monotonic()
    record = queue(task_queue, exported)
    task_queue.drain()
    seconds = time.monotonic() - began

    record.refresh_from_db()
    assert record.status == GlossaryImportStatus.SUCCEEDED, record.errors[:3]
    assert (record.terms_created, record.terms_updated) == (0, TERMS)
    assert record.translations_written == 2 * TERMS
    assert not GlossaryTranslation.objects.filter(target_term="changed").exists()
    assert seconds < 90, seconds  # 273 s when written row by row
    print(f"\n50,000 terms, 100,000 translations imported in {seconds:.1f} s")
