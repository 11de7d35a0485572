"""Polling provider batches: find lost submissions, ask how each batch is doing, and take in
the answers of those that are over (see :mod:`.provider_batches`).

The janitor queues a poll with each sweep while a batch waits (``tasks.poll_provider_batches``).
A poll:

* matches a ``submitting`` row older than a lease (its worker died while submitting) to the
  provider's batch carrying its token, or submits it if the provider has none: never twice;
* asks the provider about each ``submitted`` batch; once it is over (completed, expired,
  failed, cancelled), downloads its answers, then in one transaction writes them to the billing
  ledger at the batch price, marks the row over and wakes its units (workers are queued for
  them). Two polls at once ingest a batch once: the row is locked and must still be waiting;
* cancels at the provider the batches of runs that are over.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Now

from .. import schedule
from ..budgets import enforcement as budgets
from ..conf import get_settings
from ..errors import TranslatorError
from ..models import BatchState, ProviderBatch, Run, RunStatus, Unit
from ..translators.base import BulkTranslator
from ..translators.pins import pin_for_locale
from . import ledger
from .provider_batches import end_batch, send, wake_units

logger = logging.getLogger(__name__)

# What the provider's final status makes of the batch's row.
FINAL_STATES = {
    "completed": BatchState.INGESTED,
    "expired": BatchState.EXPIRED,
    "failed": BatchState.FAILED,
    "cancelled": BatchState.CANCELLED,
}


@dataclass
class PollReport:
    polled: int = 0
    ingested: int = 0
    recovered: int = 0
    cancelled: int = 0
    errors: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def waiting_batches() -> Any:
    return ProviderBatch.objects.filter(state__in=BatchState.waiting())


def poll_batches() -> PollReport:
    """One poll of every waiting batch (a provider's failure is logged and tried next time)."""
    report = PollReport()
    for batch in waiting_batches().select_related("run", "run__source_locale", "locale"):
        try:
            poll_one(batch, report)
        except TranslatorError as err:
            report.errors += 1
            logger.warning("Provider batch %s: %s (tried again at the next poll)", batch, err)
    return report


def poll_one(batch: ProviderBatch, report: PollReport) -> None:
    translator = translator_of(batch)
    if batch.run.status not in RunStatus.active:
        cancel_batch(batch, translator)
        report.cancelled += 1
        return
    if batch.state == BatchState.SUBMITTING:
        if recover_submission(batch, translator):
            report.recovered += 1
        return
    report.polled += 1
    status = translator.batch_status(batch.provider_batch_id)
    ProviderBatch.objects.filter(pk=batch.pk).update(provider_status=status.status, polled_at=Now())
    if status.done and ingest(batch, translator, status):
        report.ingested += 1


def translator_of(batch: ProviderBatch) -> BulkTranslator:
    return pin_for_locale(batch.run, batch.locale_id).build()


def recover_submission(batch: ProviderBatch, translator: BulkTranslator) -> bool:
    """A row left ``submitting`` for longer than a lease: its worker died between writing it
    and recording the provider's batch. Adopt the batch the provider has with its token, or
    submit it now (the provider never saw it). True when it was recovered."""
    stale = Now() - timedelta(seconds=get_settings().LEASE_SECONDS)
    if not ProviderBatch.objects.filter(pk=batch.pk, created_at__lt=stale).exists():
        return False  # its worker may still be submitting it
    found = translator.find_batch(str(batch.token))
    if found:
        ProviderBatch.objects.filter(pk=batch.pk, state=BatchState.SUBMITTING).update(
            state=BatchState.SUBMITTED, provider_batch_id=found, submitted_at=Now()
        )
        logger.info("Provider batch %s of run %s found again", found, batch.run_id)
    else:
        send(translator, batch)
    return True


def ingest(batch: ProviderBatch, translator: BulkTranslator, status: Any) -> bool:
    """Take in a batch that is over: its answers into the ledger, the row over, its units
    awake, in one transaction (True: this call did it)."""
    results, answered = translator.batch_answers(
        batch.run.source_locale, batch.locale, batch.requests, status
    )
    lines = [line for line in batch.requests if line["custom_id"] in answered]
    sent = [text for line in lines for text in line["texts"]]
    owners = {text: unit for line in lines for text, unit in line.get("owners", {}).items()}
    state = FINAL_STATES.get(status.status, BatchState.FAILED)
    with transaction.atomic():
        locked = ProviderBatch.objects.select_for_update().filter(
            pk=batch.pk, state=BatchState.SUBMITTED
        )
        if not locked.exists():
            return False  # another poll took it in
        if sent:
            ledger.record_request(batch.run, batch.locale_id, sent, owners, results)
        locked.update(
            state=state,
            provider_status=status.status,
            message=status.message,
            finished_at=Now(),
        )
        budgets.release(str(batch.token))
        woken = wake_units(batch)
        run_id = batch.run_id
        transaction.on_commit(lambda: start_workers(run_id))
    logger.info(
        "Provider batch %s of run %s %s: %d of %d request(s) answered, %d unit(s) woken",
        batch.provider_batch_id,
        batch.run_id,
        status.status,
        len(lines),
        batch.request_count,
        woken,
    )
    return True


def start_workers(run_id: int) -> None:
    """Worker chains for the units a batch woke (the run's chains ended while they waited)."""
    claimable = Unit.objects.filter(run_id=run_id).claimable().count()
    needed = schedule.workers_needed(claimable)
    running = Run.objects.filter(pk=run_id, status=RunStatus.RUNNING)
    missing = needed - (running.values_list("worker_chains", flat=True).first() or 0)
    if missing > 0 and running.update(worker_chains=F("worker_chains") + missing):
        schedule.start_worker_chains(run_id, missing)


def cancel_batch(batch: ProviderBatch, translator: BulkTranslator | None = None) -> None:
    """Cancel the batch at the provider (best effort: a batch already over costs what it
    cost) and end it; its units are the run's to cancel."""
    if batch.provider_batch_id:
        try:
            (translator or translator_of(batch)).cancel_batch(batch.provider_batch_id)
        except TranslatorError as err:
            logger.warning("Provider batch %s could not be cancelled: %s", batch, err)
    end_batch(batch, BatchState.CANCELLED, "cancelled with its run")


def cancel_run_batches(run_id: int) -> int:
    """Cancel the waiting batches of a run (the run was cancelled)."""
    batches = list(waiting_batches().filter(run_id=run_id).select_related("run", "locale"))
    for batch in batches:
        cancel_batch(batch)
    return len(batches)


def waiting_summary(run_id: int) -> list[dict[str, Any]]:
    """The run's batches waiting for the provider: requests, locale, when submitted."""
    return [
        {
            "locale": code,
            "requests": len(requests),
            "submitted_at": submitted_at.isoformat() if submitted_at else None,
            "provider_status": provider_status,
        }
        for code, requests, submitted_at, provider_status in waiting_batches()
        .filter(run_id=run_id)
        .order_by("pk")
        .values_list("locale__language_code", "requests", "submitted_at", "provider_status")
    ]
