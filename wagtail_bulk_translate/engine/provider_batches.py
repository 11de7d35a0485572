"""A language model's Batch API from the worker's side: a claim's texts go out as one provider
batch, and its units wait for the answers without a worker.

For a translator that ``submits_batches`` (``BATCH`` option), the worker sends a locale's new
texts as one batch instead of one request at a time:

1. a :class:`~wagtail_bulk_translate.models.ProviderBatch` row is committed first, with the
   requests and a token; the units needing its texts are parked on it (pending, no lease,
   ``waiting_batch`` set: nobody claims them) in the same transaction, fenced by their lease;
2. the requests are uploaded and the batch created with the token in its ``metadata``; the row
   becomes ``submitted``. A worker killed in between leaves a ``submitting`` row, which the
   poller matches to what the provider has (by the token) before it ever submits again;
3. :mod:`.batch_poll` polls, writes the answers to the billing ledger (at the batch price) and
   wakes the units in one transaction: they are claimed again and find their texts paid for in
   the run's ledger, like texts translated by an earlier request.

A text is batched once per run and locale: what a batch left out (a failed line, an answer that
could not be used, an expired batch) goes through the synchronous path, with its retries and
splitting. The budgets count a batch's estimated cost from its submission until its answers are
in the ledger.
"""

from __future__ import annotations

import logging
import re
import uuid
from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Now
from django.utils import timezone
from wagtail.models import Locale

from ..budgets import enforcement as budgets
from ..errors import TranslatorError
from ..models import BatchState, BudgetReservation, ProviderBatch, Run, Unit, UnitStatus
from ..translators.base import BulkTranslator
from . import claims, reservations
from .context import text_contexts
from .reservations import text_hash
from .work import UnitWork

logger = logging.getLogger(__name__)

WINDOW = re.compile(r"^(\d+)\s*([hd])$")
# A unit whose texts another claim is batching right now comes back after this long.
WAIT_SECONDS = 2


def batched_texts(run: Run, locale: Locale) -> dict[str, ProviderBatch]:
    """{text hash: the batch it went in} for this run and locale, latest batch first."""
    found: dict[str, ProviderBatch] = {}
    for batch in ProviderBatch.objects.filter(run=run, locale=locale).order_by("-pk"):
        for digest in batch.text_hashes:
            found.setdefault(digest, batch)
    return found


def park_for_batches(
    run: Run, translator: BulkTranslator, locale: Locale, works: list[UnitWork], texts: list[str]
) -> list[UnitWork]:
    """Submit the texts no batch of this run and locale carried yet as one new batch, and park
    every unit waiting for a batch. Returns the units that go on now, on the synchronous path
    (their texts were in batches that are over and left them out)."""
    known = batched_texts(run, locale)
    fresh = [t for t in dict.fromkeys(texts) if t.strip() and text_hash(t) not in known]
    elsewhere: set[str] = set()
    if fresh:
        # Reserved while the batch is written, as a request's texts are: two claims needing a
        # text at once never both batch it (the other one finds it batched, or waits).
        token = uuid.uuid4().hex
        elsewhere = reservations.reserve(locale.pk, fresh, token)
        try:
            known = batched_texts(run, locale)
            mine = [t for t in fresh if t not in elsewhere and text_hash(t) not in known]
            batch = submit(run, translator, locale, works, mine) if mine else None
        finally:
            reservations.release(token)
        if batch is not None:
            known.update({digest: batch for digest in batch.text_hashes})
    waiting = {d: b for d, b in known.items() if b.state in BatchState.waiting()}
    going_on = []
    for work in works:
        needed = [s.data for s in work.untranslated()]
        batch = next((waiting[d] for d in map(text_hash, needed) if d in waiting), None)
        if batch is not None:
            park(work, batch)
        elif elsewhere.intersection(needed):
            claims.release_unit(work.unit, str(work.unit.lease_token), WAIT_SECONDS)
            work.done = True  # back shortly: another claim is batching its texts
        else:
            going_on.append(work)
    return going_on


def park(work: UnitWork, batch: ProviderBatch) -> None:
    """Give the unit back to wait for the batch: pending, no lease, not claimable."""
    Unit.objects.filter(
        pk=work.unit.pk, lease_token=work.unit.lease_token, status=UnitStatus.RUNNING
    ).update(
        status=UnitStatus.PENDING,
        attempts=F("attempts") - 1,  # waiting for a batch is no failed attempt
        lease_token=None,
        lease_expires_at=None,
        available_after=None,
        waiting_batch=batch,
    )
    work.done = True


def submit(
    run: Run, translator: BulkTranslator, locale: Locale, works: list[UnitWork], texts: list[str]
) -> ProviderBatch | None:
    """Reserve the batch's spend, commit its row, then submit it to the provider (None:
    nothing to send). Raises BudgetExceededError (the run pauses) when not even its first text
    fits the budgets; texts that do not fit wait for a later batch."""
    token = uuid.uuid4()
    texts = within_budget(run, translator, locale, token, texts, works)
    try:
        context = text_contexts(works, texts)
        lines = translator.batch_lines(run.source_locale, locale, texts, context)
        if not lines:
            budgets.release(str(token))
            return None
        owners = billed_units(works)
        for line in lines:
            line["owners"] = {text: owners[text] for text in line["texts"] if text in owners}
        batch = ProviderBatch.objects.create(
            run=run,
            locale=locale,
            profile=translator.profile or "",
            token=token,
            requests=lines,
            text_hashes=sorted({text_hash(text) for line in lines for text in line["texts"]}),
        )
    except Exception:
        budgets.release(str(token))
        raise
    send(translator, batch)
    return batch


def send(translator: BulkTranslator, batch: ProviderBatch) -> None:
    """Upload and create the provider batch of a committed ``submitting`` row. A refusal that
    is not transient ends the batch (its texts go through the synchronous path, which says
    what is wrong); a lost answer or an unavailable provider leaves it ``submitting``, for the
    poller to find or send again."""
    try:
        batch_id, file_id = translator.submit_batch(batch.requests, str(batch.token))
    except TranslatorError as err:
        if not (err.transient or err.answer_lost):
            end_batch(batch, BatchState.FAILED, str(err))
        raise
    ProviderBatch.objects.filter(pk=batch.pk, state=BatchState.SUBMITTING).update(
        state=BatchState.SUBMITTED,
        provider_batch_id=batch_id,
        input_file_id=file_id,
        provider_status="validating",
        submitted_at=Now(),
    )
    batch.state, batch.provider_batch_id = BatchState.SUBMITTED, batch_id
    logger.info(
        "Run %s: %d request(s) into locale %s submitted as provider batch %s",
        batch.run_id,
        batch.request_count,
        batch.locale_id,
        batch_id,
    )


def end_batch(batch: ProviderBatch, state: str, message: str = "") -> None:
    """The batch is over without answers to ingest: its spend stops counting, its units wake."""
    with transaction.atomic():
        ProviderBatch.objects.filter(pk=batch.pk).update(
            state=state, message=message, finished_at=Now()
        )
        budgets.release(str(batch.token))
        wake_units(batch)
    batch.state = state


def within_budget(
    run: Run,
    translator: BulkTranslator,
    locale: Locale,
    token: uuid.UUID,
    texts: list[str],
    works: list[UnitWork],
) -> list[str]:
    """The texts that fit the budgets, reserved under the batch's token for its completion
    window: a batch's estimated spend counts until its answers are in the ledger."""
    from .ledger import sent_length

    def cost() -> Decimal | None:
        context = text_contexts(works, texts)
        spend = translator.estimate_spend(run.source_locale, locale, texts, context)
        return None if spend is None else Decimal(str(spend.cost))

    sizes = [sent_length(t) for t in texts]
    allowed = budgets.reserve(run, str(token), sizes, cost, translator.profile or "")
    BudgetReservation.objects.filter(token=token).update(
        expires_at=timezone.now() + window_of(translator)
    )
    return texts[:allowed]


def window_of(translator: BulkTranslator) -> timedelta:
    found = WINDOW.match(str(getattr(translator, "batch_window", "24h")).strip().lower())
    if not found:
        return timedelta(hours=24)
    amount, unit = int(found[1]), found[2]
    return timedelta(hours=amount) if unit == "h" else timedelta(days=amount)


def billed_units(works: list[UnitWork]) -> dict[str, int]:
    """The unit each text is billed to: the first one needing it."""
    owners: dict[str, int] = {}
    for work in works:
        for s in work.untranslated():
            owners.setdefault(s.data, work.unit.pk)
    return owners


def wake_units(batch: ProviderBatch) -> int:
    """The batch is over: its units can be claimed again (call in the ingesting transaction)."""
    return Unit.objects.filter(waiting_batch=batch).update(waiting_batch=None, available_after=None)
