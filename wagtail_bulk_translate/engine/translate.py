"""Step 3: translate, per target locale, every string the claim's units need.

A text is paid for at most once per locale per run, in every mode: what this run already
translated is reused from its ledger (and, in ``changed`` mode, text translated anywhere on the
site from translation memory); identical strings are sent once; texts another worker is paying
for right now are waited for (reservations). Texts go out one provider request at a time, and
each answer is written to the ledger and stored the moment it arrives (retried while the
database is busy), so a crash pays again for at most the one request in flight. A text whose
markup the translator broke twice for a locale is not sent again in the run.
"""

from __future__ import annotations

import time
import uuid
from decimal import Decimal
from typing import Any

from wagtail.models import Locale

from ..budgets import enforcement as budgets
from ..errors import ErrorCode, TransientTranslatorError, TranslatorError, UnitError
from ..localize.strings import (
    translation_memory,
    upsert_string_translations,
    valid_markup,
)
from ..models import Mode, Run
from ..revert.state import StringChanges
from ..translators.base import BulkTranslator, Translations
from . import claims, ledger, provider_batches, reservations
from .context import text_contexts
from .work import UnitWork

# A unit waiting for a text another worker is translating, or for its parent page, comes back
# after this long.
WAIT_SECONDS = 2
# A claim waits this long for texts another worker is translating (a request in flight), polling
# this often, before it gives the units needing them back.
WAIT_FOR_OTHERS_SECONDS = 30
WAIT_POLL_SECONDS = 0.05

GIVEN_UP_MESSAGE = (
    "The translator broke the inline markup (links or formatting) of {text!r} every time it "
    "was sent, so it is left in the source language for review."
)


def translate_locale(
    run: Run, translator: BulkTranslator, works: list[UnitWork], *, hold_tail: bool = False
) -> None:
    """Translate what the claim's units need in one locale, one provider request at a time.

    With ``hold_tail`` the last request (the one that may not be full) is not sent: the claim
    grows and sends its texts with the next objects'. Without it, every text goes out, and a
    text answered with broken markup is sent once more; a text that cannot be translated is
    held (left in the source language, for review) rather than failing its unit. A
    translator that submits batches sends the locale's new texts as one provider batch, its
    units waiting for it without a worker (:mod:`.provider_batches`).
    """
    locale = works[0].unit.target_locale
    if translator.submits_batches:
        if hold_tail:
            return  # the claim grows first: its texts go out as one provider batch
        works = hold_given_up_texts(run, locale, works)
        to_send = texts_to_send(run, translator, locale, works)
        works = provider_batches.park_for_batches(run, translator, locale, works, to_send)
        if not works:
            return
    for attempt in range(2):
        works = hold_given_up_texts(run, locale, works)
        to_send = texts_to_send(run, translator, locale, works)
        batches = request_batches(translator, run.source_locale, locale, to_send, works)
        if hold_tail:
            batches = batches[:-1]
        elsewhere: set[str] = set()
        for batch in batches:
            works = claims.still_held(works)  # a unit whose lease was lost is not paid again
            if not works:
                return
            elsewhere |= send_request(run, translator, locale, works, batch)
        if hold_tail:
            return
        works = [w for w in works if not w.done]
        if elsewhere:
            wait_for_other_workers(run, locale, works, elsewhere)
            works = [w for w in works if not w.done]
        if attempt or not any(w.untranslated() for w in works):
            break
    hold_given_up_texts(run, locale, works)


def texts_to_send(
    run: Run, translator: BulkTranslator, locale: Locale, works: list[UnitWork]
) -> list[str]:
    """The texts the units still need that neither this run nor translation memory knows."""
    texts = needed_texts(works)
    memory = known_translations(run, locale, texts, works)
    to_send = [text for text in texts if text not in memory]
    if to_send and not translator.can_translate(run.source_locale, locale):
        raise UnitError(
            ErrorCode.UNSUPPORTED_LOCALE,
            f"The translator cannot translate from {run.source_locale} into {locale}.",
        )
    accept(run, locale, works, memory, Translations())
    return to_send


def request_batches(
    translator: BulkTranslator,
    source_locale: Locale,
    locale: Locale,
    texts: list[str],
    works: list[UnitWork],
) -> list[list[str]]:
    """The provider requests for ``texts``; a translator that reads documents also gets where
    each text comes from (others are asked exactly as before)."""
    if not translator.reads_context:
        return translator.request_batches(source_locale, locale, texts)
    context = text_contexts(works, texts)
    return translator.request_batches(source_locale, locale, texts, context=context)  # type: ignore[call-arg]


def needed_texts(works: list[UnitWork]) -> list[str]:
    return list(dict.fromkeys(s.data for w in works for s in w.untranslated()))


def hold_given_up_texts(run: Run, locale: Locale, works: list[UnitWork]) -> list[UnitWork]:
    """Texts whose markup the translator broke too often are not sent again: they are held."""
    given_up = ledger.given_up_texts(run, locale.pk, needed_texts(works))
    for work in works:
        for s in work.untranslated():
            if s.data in given_up:
                answer = work.broken_answers.get(s, "")
                hold(
                    work,
                    s,
                    ErrorCode.INVALID_MARKUP,
                    GIVEN_UP_MESSAGE.format(text=s.data[:80]),
                    answer,
                )
    return [w for w in works if not w.done]


def hold(work: UnitWork, string: Any, code: str, message: str, answer: str = "") -> None:
    """Leave a text in the source language; its object is written as a draft for review."""
    work.held[string] = {"code": str(code), "message": message, "answer": answer}


def known_translations(
    run: Run, locale: Locale, texts: list[str], works: list[UnitWork]
) -> dict[str, str]:
    """Translations that need no call: paid for earlier in this run, or (changed mode only)
    translation memory of the whole site, but for what the translator wrote under another
    output signature or before a glossary/house style change that bears on it (the locale's
    units carry both)."""
    memory = ledger.run_memory(run, locale.pk, texts)
    if run.mode == Mode.CHANGED:
        tool = tool_of(works)
        changes = works[0].rule_changes if works else None
        memory.update(translation_memory(run.source_locale_id, texts, locale.pk, tool, changes))
    return memory


def send_request(
    run: Run, translator: BulkTranslator, locale: Locale, works: list[UnitWork], batch: list[str]
) -> set[str]:
    """One provider request: reserve its texts and its spend, send, record and store the
    answer at once. A request the budgets cut short sends the rest in another (refused, and the
    run paused, when nothing of it fits).

    Returns the texts of the batch that another worker is paying for right now (not sent).
    """
    token = uuid.uuid4().hex
    rest: list[str] = []
    try:
        batch, elsewhere = reserve_texts(run, locale, token, batch, works)
        if not batch:
            return elsewhere
        batch, rest = within_budget(run, translator, locale, token, batch, works)
        owners = billed_units(batch, works)
        try:
            results = call_translator(translator, run.source_locale, locale, batch, works)
        except TranslatorError as err:
            # Texts answered before the failure (e.g. the quota ran out mid-call) are paid
            # for: keep them, so resuming does not send them again.
            partial = err.partial or Translations()
            answered = [t for t in batch if t in partial.texts or t in partial.billed_characters]
            transient = isinstance(err, TransientTranslatorError)
            if answered or partial.spend is not None or partial.unanswered:
                # The budget reservation ends with the request's last ledger write.
                last = None if transient else token
                ledger.record_request(run, locale.pk, answered, owners, partial, last)
                accept(run, locale, works, {}, partial)
            if err.answer_lost:  # went out, no answer: billed, maybe
                lost = [t for t in batch if t not in answered]
                ledger.record_unanswered(run, locale.pk, lost, owners, token)
            raise
        ledger.record_request(run, locale.pk, batch, owners, results, token)
        accept(run, locale, works, {}, results)
    finally:
        # Only once the translations are stored: a worker waiting for them then finds them.
        reservations.release(token)
        budgets.release(token)
    if rest and claims.still_held(works):
        elsewhere |= send_request(run, translator, locale, works, rest)
    return elsewhere


def within_budget(
    run: Run,
    translator: BulkTranslator,
    locale: Locale,
    token: str,
    batch: list[str],
    works: list[UnitWork],
) -> tuple[list[str], list[str]]:
    """The texts of the request that fit the budgets (reserved under ``token``), and the rest.

    Raises BudgetExceededError when none fits: the run pauses, nothing was sent.
    """
    sizes = [ledger.sent_length(text) for text in batch]
    allowed = budgets.reserve(
        run,
        token,
        sizes,
        lambda: estimated_cost(translator, run, locale, batch, works),
        translator.profile or "",
    )
    return batch[:allowed], batch[allowed:]


def estimated_cost(
    translator: BulkTranslator, run: Run, locale: Locale, batch: list[str], works: list[UnitWork]
) -> Decimal | None:
    """What the translator expects the request to cost (None: it does not report money)."""
    context = text_contexts(works, batch) if translator.reads_context else None
    spend = translator.estimate_spend(run.source_locale, locale, batch, context)
    return None if spend is None else Decimal(str(spend.cost))


def call_translator(
    translator: BulkTranslator,
    source_locale: Locale,
    locale: Locale,
    texts: list[str],
    works: list[UnitWork],
) -> Translations:
    if not texts:
        return Translations()
    if not translator.reads_context:
        return translator.translate_texts(source_locale, locale, texts)
    context = text_contexts(works, texts)
    return translator.translate_texts(source_locale, locale, texts, context=context)  # type: ignore[call-arg]


def reserve_texts(
    run: Run, locale: Locale, token: str, batch: list[str], works: list[UnitWork]
) -> tuple[list[str], set[str]]:
    """Reserve the request's texts. Returns the texts to send, and those another worker is
    translating right now (waited for once this claim's own requests are done)."""
    elsewhere = reservations.reserve(locale.pk, batch, token)
    # Translated and stored since the first lookup (their reservation already released).
    known = known_translations(run, locale, [t for t in batch if t not in elsewhere], works)
    accept(run, locale, works, known, Translations())
    needed = {s.data for w in works for s in w.needs.to_translate if s not in w.translated}
    to_send = [t for t in batch if t in needed and t not in known and t not in elsewhere]
    return to_send, elsewhere & needed


def wait_for_other_workers(
    run: Run, locale: Locale, works: list[UnitWork], texts: set[str]
) -> None:
    """Wait, within the claim, for texts other workers are paying for, then take their answers.

    Their request is usually in flight already, so waiting here costs less than a round trip
    through the queue. Only this claim's reservations are released by now, so two workers
    never wait for each other. Units still missing a text when the other worker gives up (its
    reservation gone without a stored translation) or after ``WAIT_FOR_OTHERS_SECONDS`` (it
    may have died) are given back to come again shortly.
    """
    pending = set(texts)
    deadline = time.monotonic() + WAIT_FOR_OTHERS_SECONDS
    while True:
        # Held first: a translation is stored before its reservation is released, so a text
        # no longer held is in memory by the time it is looked up below, or never will be.
        held = reservations.held_elsewhere(locale.pk, pending)
        known = known_translations(run, locale, sorted(pending), works)
        accept(run, locale, works, known, Translations())
        pending -= known.keys()
        if not pending or not held or time.monotonic() >= deadline:
            break
        time.sleep(WAIT_POLL_SECONDS)
    for work in works:
        if any(s.data in pending for s in work.untranslated()):
            claims.release_unit(work.unit, token_of(work), WAIT_SECONDS)
            work.done = True


def tool_of(works: list[UnitWork]) -> str:
    """The tool name of a locale's units (one profile, one locale: the same)."""
    return works[0].tool if works else ""


def token_of(work: UnitWork) -> str:
    return str(work.unit.lease_token)


def billed_units(batch: list[str], works: list[UnitWork]) -> dict[str, int]:
    """The unit each text of the request is billed to: the first one needing it."""
    owners: dict[str, int] = {}
    for work in works:
        for s in work.needs.to_translate:
            owners.setdefault(s.data, work.unit.pk)
    return {text: owners[text] for text in batch if text in owners}


def accept(
    run: Run, locale: Locale, works: list[UnitWork], known: dict[str, str], results: Translations
) -> None:
    """Attach translations to the units needing them and store them at once (a unit retried
    after a crash or a failed write finds them). A refused text is held; an answer with broken
    markup is kept aside (the text goes out once more, then is held)."""
    fresh: dict[int, dict] = {}
    for work in works:
        for s in work.untranslated():
            value = known.get(s.data) or results.texts.get(s.data)
            if value is not None and not valid_markup(s.data, value):
                work.broken_answers[s] = value
            elif value is not None:
                work.translated[s] = value
                fresh.setdefault(id(work), {})[s] = value
            elif s.data in results.refused:
                refusal = results.refused[s.data]
                hold(work, s, refusal.code, refusal.message)
    if fresh:
        persist_translations(run, locale, [w for w in works if id(w) in fresh], fresh)


def persist_translations(
    run: Run, locale: Locale, works: list[UnitWork], fresh: dict[int, dict]
) -> None:
    """Store what was just paid for, retried while the database is busy (it is also kept in
    the ledger, so even a store that keeps failing is not paid for again)."""

    def store() -> list[StringChanges]:
        changes = []
        for work in works:
            values = fresh[id(work)]
            changes.append(store_machine_strings(run, locale.pk, values, work.tool))
        return changes

    for work, changes in zip(works, ledger.retry_while_busy(store), strict=True):
        work.string_changes = work.string_changes.merged(changes)


def store_machine_strings(run: Run, locale_id: int, values: dict, tool: str) -> StringChanges:
    return upsert_string_translations(values, locale_id, tool=tool, user=run.created_by)
