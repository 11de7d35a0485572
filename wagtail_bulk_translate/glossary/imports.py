"""A glossary CSV import in the background: checked when uploaded, written by a task.

Up to 50,000 terms are more than one web request should write. The upload is checked at once
(the editor sees every bad row straight away, nothing stored), then stored as a
:class:`GlossaryImport` and written by the ``import_glossary`` task, which takes its id. The
import page shows the result; the audit log gets one entry per import (not one per term).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from wagtail.log_actions import log

from .. import schedule
from ..models import GlossaryImport, GlossaryImportStatus
from .changes import glossary_changed
from .csv_io import GlossaryImportError, decode, parse_rows, read_csv, write_terms

IMPORTED = "wagtail_bulk_translate.glossary.imported"


def queue_import(data: bytes | str, file_name: str, user: Any) -> GlossaryImport:
    """Check the file and queue its import; raises GlossaryImportError (storing nothing)."""
    text = decode(data)
    rows = read_csv(text)
    parse_rows(rows)
    record = GlossaryImport.objects.create(
        file_name=file_name[:255], content=text, rows=len(rows), created_by=user
    )
    transaction.on_commit(lambda: schedule.import_glossary(record.pk))
    return record


def run_import(import_id: int) -> str:
    """Write a queued import's terms; returns its status.

    The queued → running update is conditional, so a task delivered twice writes once. The
    file is checked again (a locale may have been deleted since) and written in one
    transaction with its audit entry and result: a failure leaves nothing half written.
    """
    if not GlossaryImport.objects.filter(pk=import_id, status=GlossaryImportStatus.QUEUED).update(
        status=GlossaryImportStatus.RUNNING
    ):
        return "skipped"
    record = GlossaryImport.objects.get(pk=import_id)
    try:
        with transaction.atomic():
            summary = write_terms(parse_rows(read_csv(record.content)))
            record.terms_created = summary.terms_created
            record.terms_updated = summary.terms_updated
            record.translations_written = summary.translations_written
            finish(record, GlossaryImportStatus.SUCCEEDED)
            log(
                instance=record,
                action=IMPORTED,
                user=record.created_by,
                data={
                    "file": record.file_name,
                    "created": summary.terms_created,
                    "updated": summary.terms_updated,
                    "translations": summary.translations_written,
                },
            )
            glossary_changed()
    except GlossaryImportError as err:
        record.errors = err.errors
        finish(record, GlossaryImportStatus.FAILED)
    return record.status


def finish(record: GlossaryImport, status: str) -> None:
    # The file is not kept once imported: the glossary (and its export) holds what it said.
    record.status, record.content, record.finished_at = status, "", timezone.now()
    record.save()
