"""Step 3: one translator call per target locale for every string the claim's units need.

Text already translated into the locale anywhere on the site is reused (translation memory);
identical strings are sent once; texts another worker is paying for right now are waited for
(reservations); what was paid for is stored at once, even when the call fails part-way, so a
retried unit never sends it again.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from wagtail.models import Locale

from ..errors import ErrorCode, TranslatorError, UnitError
from ..localize.strings import translation_memory, upsert_string_translations, valid_markup
from ..models import Mode, Run, Unit
from ..revert.state import StringChanges
from ..translators.base import BulkTranslator, Translations
from . import claims, reservations
from .work import UnitWork

# A unit waiting for a text another worker is translating, or for its parent page, comes back
# after this long.
WAIT_SECONDS = 2


def translate_locale(run: Run, translator: BulkTranslator, works: list[UnitWork]) -> None:
    """One translator call for every string the claim's units need in one locale."""
    locale = works[0].unit.target_locale
    texts: dict[str, UnitWork] = {}
    for work in works:
        for s in work.needs.to_translate:
            texts.setdefault(s.data, work)
    memory = (
        translation_memory(run.source_locale_id, list(texts), locale.pk)
        if run.mode == Mode.CHANGED
        else {}
    )
    to_send = [text for text in texts if text not in memory]
    if to_send and not translator.can_translate(run.source_locale, locale):
        raise UnitError(
            ErrorCode.UNSUPPORTED_LOCALE,
            f"The translator cannot translate from {run.source_locale} into {locale}.",
        )
    token = str(works[0].unit.lease_token)
    try:
        if run.mode == Mode.CHANGED and to_send:
            to_send, works = reserve_texts(run, locale, token, to_send, works, memory)
        try:
            results = call_translator(translator, run.source_locale, locale, to_send)
        except TranslatorError as err:
            # Requests answered before the failure (e.g. the quota ran out mid-call) are paid
            # for: keep them, so resuming does not send them again.
            accept_results(run, works, texts, memory, err.partial or Translations())
            record_partial_billing(works)
            raise
        accept_results(run, works, texts, memory, results)
    finally:
        # Only once the translations are stored: a worker waiting for them then finds them.
        reservations.release(token)


def call_translator(
    translator: BulkTranslator, source_locale: Locale, locale: Locale, texts: list[str]
) -> Translations:
    if not texts:
        return Translations()
    return translator.translate_texts(source_locale, locale, texts)


def reserve_texts(
    run: Run,
    locale: Locale,
    token: str,
    to_send: list[str],
    works: list[UnitWork],
    memory: dict[str, str],
) -> tuple[list[str], list[UnitWork]]:
    """Reserve the texts to send; units needing a text another worker is translating come back
    shortly (it will be in memory then). Returns the texts to send and the units that stay."""
    elsewhere = reservations.reserve(locale.pk, to_send, token)
    # Translated and stored since the memory lookup (their reservation already released).
    sent_here = [t for t in to_send if t not in elsewhere]
    memory.update(translation_memory(run.source_locale_id, sent_here, locale.pk))
    waiting = [w for w in works if any(s.data in elsewhere for s in w.needs.to_translate)]
    for work in waiting:
        claims.release_unit(work.unit, token, WAIT_SECONDS)
        work.done = True
    staying = [w for w in works if not w.done]
    needed = {s.data for w in staying for s in w.needs.to_translate}
    return [t for t in to_send if t in needed and t not in memory and t not in elsewhere], staying


def accept_results(
    run: Run,
    works: list[UnitWork],
    texts: dict[str, UnitWork],
    memory: dict[str, str],
    results: Translations,
) -> None:
    """Attach translations (and refusals) to their units, bill them, and store them at once."""
    if not works:
        return
    for text in results.texts:
        texts[text].billed += results.billed_characters.get(text, 0)
    for work in works:
        for s in work.needs.to_translate:
            value = memory.get(s.data) or results.texts.get(s.data)
            if value is not None:
                work.translated[s] = value
            elif s.data in results.refused:
                refusal = results.refused[s.data]
                work.refused.setdefault(refusal.code, refusal.message)
    persist_translations(run, works[0].unit.target_locale, works)


def record_partial_billing(works: list[UnitWork]) -> None:
    """Units given back after a failed call still carry what was billed for them."""
    for work in works:
        if work.billed:
            Unit.objects.filter(pk=work.unit.pk).update(
                billed_characters=F("billed_characters") + work.billed
            )
            work.billed = 0


def persist_translations(run: Run, locale: Locale, works: list[UnitWork]) -> None:
    """Store what was just paid for, for every unit of the call, before anything else can go
    wrong: a unit retried after a crash or a failed write finds these strings and does not
    send them again."""
    with transaction.atomic():
        for work in works:
            valid = {s: v for s, v in work.translated.items() if valid_markup(s.data, v)}
            work.string_changes = store_machine_strings(run, locale.pk, valid)


def store_machine_strings(run: Run, locale_id: int, values: dict) -> StringChanges:
    tool = f"{run.translator_class.rsplit('.', 1)[-1]} (bulk)"
    return upsert_string_translations(values, locale_id, tool=tool, user=run.created_by)
