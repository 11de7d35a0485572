"""The billing ledger: every text sent to the translator, what it cost and what came back.

One :class:`~wagtail_bulk_translate.models.SentText` row per text per request, written the
moment the translator answers (retried while the database is busy). The run's billed figures
are sums over it; within a run it is also a translation memory (a text is paid for at most
once per locale, in every mode) and the record of texts whose markup the translator keeps
breaking (not sent again).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeVar

from django.db import OperationalError, transaction
from django.db.models import Count, F, Q, Sum
from django.db.models.functions import Coalesce

from ..budgets import enforcement as budgets
from ..errors import ErrorCode
from ..localize.strings import valid_markup
from ..models import Run, SentOutcome, SentText, SpentRequest, Unit, UnitStatus
from ..translators.base import Spend, Translations
from ..translators.pins import pin_for_locale
from .connections import is_connection_lost, reconnect
from .reservations import text_hash
from .text_kinds import plain_text

logger = logging.getLogger(__name__)

# A text whose markup the translator broke this many times for a locale is not sent again in
# the run: the units needing it fail with invalid_markup without a call.
MARKUP_FAILURES_TO_GIVE_UP = 2

# Storing what was paid for is retried this many times while the database is busy.
STORE_ATTEMPTS = 6
STORE_BACKOFF_SECONDS = 0.05
STORE_BACKOFF_MAX_SECONDS = 1.0

T = TypeVar("T")


@dataclass(frozen=True)
class Billing:
    billed: int
    billed_for_failed_units: int
    texts_sent: int
    characters_sent: int = 0
    # Sent without an answer (timeout, dropped connection): the provider may have billed them.
    unanswered_texts: int = 0
    unanswered_characters: int = 0


def retry_while_busy(store: Callable[[], T], attempts: int = STORE_ATTEMPTS) -> T:
    """Run ``store`` in its own (nested) transaction, again while the database is busy
    (locked, deadlock, serialization failure) or, outside a transaction, once it is back from
    a lost connection: what it stores must not be lost."""
    for attempt in range(1, attempts + 1):
        try:
            with transaction.atomic():
                return store()
        except OperationalError as err:
            if attempt == attempts:
                raise
            if is_connection_lost(err) and not transaction.get_connection().in_atomic_block:
                # The database restarted after the translator answered: what was paid for is
                # stored once it is back, not sent (and paid) again.
                reconnect()
                continue
            logger.info("Database busy storing %s; retry %d", store, attempt)
            time.sleep(min(STORE_BACKOFF_SECONDS * 2 ** (attempt - 1), STORE_BACKOFF_MAX_SECONDS))
    raise AssertionError("unreachable")


def record_request(
    run: Run,
    locale_id: int,
    sent: list[str],
    owners: dict[str, int],
    results: Translations,
    budget_token: str | None = None,
) -> None:
    """Write one answered request to the ledger and bill its units, retried while busy.

    ``owners`` maps each sent text to the unit it is billed to; the request's budget
    reservation (``budget_token``) ends in the same transaction, so its spend counts once.
    The times the translator sent texts again after an answer was lost (``unanswered``) are
    written too, as sent without an answer.
    """
    request = uuid.uuid4()
    rows = [sent_row(run, locale_id, request, text, owners.get(text), results) for text in sent]
    for text, times in results.unanswered.items():
        for _attempt in range(times):
            rows += unanswered_rows(run, locale_id, [text], owners)
    per_unit: dict[int, int] = defaultdict(int)
    for row in rows:
        if row.unit_id is not None:
            per_unit[row.unit_id] += row.characters

    spent = spent_request(run, locale_id, request, results.spend)

    def store() -> None:
        SentText.objects.bulk_create(rows)
        if spent is not None:
            spent.save()
        for unit_id, characters in per_unit.items():
            if characters:
                Unit.objects.filter(pk=unit_id).update(
                    billed_characters=F("billed_characters") + characters
                )
        if budget_token:
            budgets.release(budget_token)

    retry_while_busy(store)


def spent_request(
    run: Run, locale_id: int, request: uuid.UUID, spend: Spend | None
) -> SpentRequest | None:
    """The request's tokens and money, for translators that report them."""
    if spend is None:
        return None
    return SpentRequest(
        run=run,
        locale_id=locale_id,
        profile=pin_for_locale(run, locale_id).profile,
        request=request,
        calls=spend.requests,
        prompt_tokens=spend.prompt_tokens,
        completion_tokens=spend.completion_tokens,
        cost=Decimal(str(round(spend.cost, 6))),
    )


def record_unanswered(
    run: Run,
    locale_id: int,
    sent: list[str],
    owners: dict[str, int],
    budget_token: str | None = None,
) -> None:
    """Write a request that went out and whose answer was lost (the translator's error says so:
    ``answer_lost``): the provider may have billed it, so the run's report shows it beside
    what was billed. Refused requests (a 429, a 503, a 4xx) were answered: never here."""
    rows = unanswered_rows(run, locale_id, sent, owners)

    def store() -> None:
        SentText.objects.bulk_create(rows)
        if budget_token:
            budgets.release(budget_token)

    retry_while_busy(store)


def unanswered_rows(
    run: Run, locale_id: int, sent: list[str], owners: dict[str, int]
) -> list[SentText]:
    """One lost request's rows: its texts, sent without an answer."""
    request = uuid.uuid4()
    profile = pin_for_locale(run, locale_id).profile
    return [
        SentText(
            run=run,
            locale_id=locale_id,
            profile=profile,
            unit_id=owners.get(text),
            request=request,
            text_hash=text_hash(text),
            sent_characters=sent_length(text),
            outcome=SentOutcome.UNANSWERED,
        )
        for text in sent
    ]


def sent_length(text: str) -> int:
    """Characters sent for a text: its text without the markup (as the estimate counts)."""
    return len(plain_text(text))


def sent_row(
    run: Run,
    locale_id: int,
    request: uuid.UUID,
    text: str,
    unit_id: int | None,
    results: Translations,
) -> SentText:
    translation = results.texts.get(text)
    failures = 0
    if translation is not None:
        outcome = SentOutcome.TRANSLATED
        if not valid_markup(text, translation):
            outcome, failures, translation = SentOutcome.INVALID_MARKUP, 1, None
    elif text in results.refused:
        outcome = SentOutcome.REFUSED
        if results.refused[text].code == ErrorCode.INVALID_MARKUP:
            # The translator already tried it twice (DeepL retries broken markup once).
            outcome, failures = SentOutcome.INVALID_MARKUP, MARKUP_FAILURES_TO_GIVE_UP
    else:
        outcome = SentOutcome.MISSING
    return SentText(
        run=run,
        locale_id=locale_id,
        profile=pin_for_locale(run, locale_id).profile,
        unit_id=unit_id,
        request=request,
        text_hash=text_hash(text),
        characters=results.billed_characters.get(text, 0),
        sent_characters=sent_length(text),
        outcome=outcome,
        markup_failures=failures,
        translation=translation or "",
    )


def run_memory(run: Run, locale_id: int, texts: list[str]) -> dict[str, str]:
    """Valid translations this run already paid for, whether or not they were stored yet."""
    if not texts:
        return {}
    hashes = {text_hash(t): t for t in texts}
    rows = SentText.objects.filter(
        run=run, locale_id=locale_id, text_hash__in=hashes, outcome=SentOutcome.TRANSLATED
    ).values_list("text_hash", "translation")
    return {hashes[h]: translation for h, translation in rows}


def given_up_texts(run: Run, locale_id: int, texts: list[str]) -> set[str]:
    """Texts whose markup the translator broke too often for this locale in this run."""
    if not texts:
        return set()
    hashes = {text_hash(t): t for t in texts}
    rows = (
        SentText.objects.filter(run=run, locale_id=locale_id, text_hash__in=hashes)
        .values("text_hash")
        .annotate(failures=Sum("markup_failures"))
        .filter(failures__gte=MARKUP_FAILURES_TO_GIVE_UP)
        .values_list("text_hash", flat=True)
    )
    return {hashes[h] for h in rows}


def billing(run: Run) -> Billing:
    """What the run sent to the translator and what it billed (with how much of it for units
    that then failed, and what went out without an answer)."""
    unanswered = Q(outcome=SentOutcome.UNANSWERED)
    totals = SentText.objects.filter(run=run).aggregate(
        billed=Coalesce(Sum("characters"), 0),
        failed=Coalesce(Sum("characters", filter=Q(unit__status=UnitStatus.FAILED)), 0),
        texts=Count("pk"),
        sent=Coalesce(Sum("sent_characters"), 0),
        unanswered_texts=Count("pk", filter=unanswered),
        unanswered_characters=Coalesce(Sum("sent_characters", filter=unanswered), 0),
    )
    return Billing(
        billed=totals["billed"],
        billed_for_failed_units=totals["failed"],
        texts_sent=totals["texts"],
        characters_sent=totals["sent"],
        unanswered_texts=totals["unanswered_texts"],
        unanswered_characters=totals["unanswered_characters"],
    )


def characters_sent(run: Run) -> int:
    """Characters the run sent to the translator so far (for progress lines)."""
    total = SentText.objects.filter(run=run).aggregate(sent=Coalesce(Sum("sent_characters"), 0))
    return int(total["sent"])


def spend(run: Run) -> Spend | None:
    """The tokens and money the run's requests cost; None when its translator reported none
    (it bills characters)."""
    totals = SpentRequest.objects.filter(run=run).aggregate(
        n=Count("pk"),
        calls=Coalesce(Sum("calls"), 0),
        prompt=Coalesce(Sum("prompt_tokens"), 0),
        completion=Coalesce(Sum("completion_tokens"), 0),
        cost=Sum("cost"),
    )
    if not totals["n"]:
        return None
    return Spend(totals["calls"], totals["prompt"], totals["completion"], float(totals["cost"]))
