"""The worker: processes claimed units through wagtail-localize.

For each claim (a few whole objects, every claimable locale of each):

1. load each source object once (live or latest draft, per the run), extract its segments and
   hash them; in "changed" mode, units whose hash matches their last successful machine
   translation are skipped without a translator call or a new revision;
2. refresh the TranslationSource once per object and decide, per locale, which strings need a
   translation (manual translations kept, memory reused, non-prose copied unchanged);
3. translate per target locale, packing the strings of every unit of the claim into one call
   (the translator splits it into requests within its provider's limits);
4. store machine StringTranslations, then write each target in its own transaction, fenced by
   the unit's lease token so a worker that lost its lease can never overwrite a newer attempt.

Every exception is caught per unit and recorded with a stable code and a readable message.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field
from html import unescape
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import DataError, OperationalError, models, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.html import strip_tags
from wagtail.models import Locale, Page, TranslatableMixin
from wagtail_localize.models import (
    SourceDeletedError,
    StringTranslation,
    Translation,
    TranslationLog,
    TranslationSource,
)
from wagtail_localize.segments import RelatedObjectSegmentValue
from wagtail_localize.strings import StringValue, validate_translation_links

from ..conf import get_settings
from ..errors import (
    ErrorCode,
    QuotaExceededError,
    TranslatorConfigError,
    TranslatorError,
    UnitError,
    UnitSkipped,
)
from ..localize import site_settings
from ..localize.segments import (
    SourceString,
    StringNeeds,
    existing_translations,
    hash_instance,
    load_source_strings,
    plan_strings,
)
from ..localize.target_writer import (
    can_be_draft,
    check_complete,
    page_slug,
    snapshot_target,
    write_target,
)
from ..models import ContentSource, Mode, PublishPolicy, Run, Unit, UnitStatus
from ..revert.snapshots import row_fingerprint
from ..runs import controls
from ..scope.enumeration import model_label
from ..translators.loading import build_translator
from . import claims, reservations
from .finish import try_finish_run

logger = logging.getLogger(__name__)

PARENT_WAIT_SECONDS = 2
DERIVE_SLUG = object()


@dataclass
class UnitWork:
    unit: Unit
    target: models.Model | None = None
    needs: StringNeeds = field(default_factory=StringNeeds)
    translated: dict[SourceString, str] = field(default_factory=dict)
    billed: int = 0
    done: bool = False
    # Texts the translator refused: {error code: message}.
    refused: dict[str, str] = field(default_factory=dict)
    # StringTranslations this unit created or changed, for revert.
    string_changes: dict[str, list] = field(default_factory=dict)


@dataclass
class ObjectWork:
    """One source object and the claimed units (locales) that share its extraction."""

    units: list[UnitWork]
    instance: Any = None
    source: TranslationSource | None = None
    # Change-detection hash per target locale (see locale_hashes).
    hashes: dict[int, str] = field(default_factory=dict)
    # Objects the source refers to (snippet choosers): their translation changes the target.
    related_keys: set = field(default_factory=set)
    version: str = ""
    strings: list[SourceString] = field(default_factory=list)


@dataclass(frozen=True)
class WorkerOutcome:
    units_processed: int
    more_work: bool


def process_run(run_id: int, time_budget: float | None = None) -> WorkerOutcome:
    """Claim and process units of a run until none are claimable or the budget is spent.

    A transient provider failure ends the loop early: the failed units come back after their
    back-off, and so does this task (a run-wide back-off instead of hammering the provider).
    """
    conf = get_settings()
    budget = conf.WORKER_TIME_BUDGET_SECONDS if time_budget is None else time_budget
    deadline = time.monotonic() + budget
    run = Run.objects.select_related("source_locale", "created_by").get(pk=run_id)
    translator = build_translator(run.translator_class, run.translator_options)
    processed = 0
    while time.monotonic() < deadline:
        token, units = claims.claim_units(run_id, conf.UNITS_PER_CLAIM)
        if not units:
            break
        claim = Claim(run, token)
        try:
            process_claim(claim, translator, units)
        except ClaimAborted:
            claims.release_claim(token)
            return WorkerOutcome(processed, more_work=False)
        processed += len(units)
        if claim.transient_failures:
            return WorkerOutcome(processed, more_work=False)
    else:
        return WorkerOutcome(processed, more_work=True)
    try_finish_run(run_id)
    return WorkerOutcome(processed, more_work=False)


class ClaimAborted(Exception):
    """The run was paused or stopped mid-claim; the claim's open units are given back."""


@dataclass
class Claim:
    """The units one worker holds under one lease token, and what happened to them."""

    run: Run
    token: str
    transient_failures: int = 0
    renewed_at: float = field(default_factory=time.monotonic)

    def keep_lease(self) -> None:
        """Renew the lease once a third of it has gone by, so long claims stay owned."""
        if time.monotonic() - self.renewed_at > get_settings().LEASE_SECONDS / 3:
            claims.renew_leases(self.token)
            self.renewed_at = time.monotonic()


def process_claim(claim: Claim, translator, units: list[Unit]) -> None:
    run, token = claim.run, claim.token
    objects = group_by_object(units)
    for obj in objects:
        guard_errors(claim, obj.units, lambda obj=obj: prepare_object(run, token, obj))
    for works in pending_by_locale(objects).values():
        claim.keep_lease()
        guard_errors(claim, works, lambda w=works: translate_locale(run, translator, w))
    for obj in objects:
        for work in obj.units:
            if not work.done:
                claim.keep_lease()
                guard_errors(claim, [work], lambda o=obj, w=work: write_unit(run, token, o, w))


def group_by_object(units: list[Unit]) -> list[ObjectWork]:
    grouped: dict[int, ObjectWork] = {}
    for unit in units:
        grouped.setdefault(unit.position, ObjectWork(units=[])).units.append(UnitWork(unit))
    return list(grouped.values())


def pending_by_locale(objects: list[ObjectWork]) -> dict[int, list[UnitWork]]:
    by_locale: dict[int, list[UnitWork]] = defaultdict(list)
    for obj in objects:
        for work in obj.units:
            if not work.done and work.needs.to_translate:
                by_locale[work.unit.target_locale_id].append(work)
    return by_locale


# --- error handling -------------------------------------------------------------------------


def guard_errors(claim: Claim, works: list[UnitWork], step) -> None:
    """Run a step; on failure record it on every still-open unit of ``works``.

    Quota exhausted pauses the run and a configuration error stops it (both abort the claim);
    transient failures are retried later; anything else fails the units with a reason.
    """
    try:
        step()
    except UnitSkipped as err:
        close_units(claim.token, works, UnitStatus.SKIPPED, err.code, err.message)
    except QuotaExceededError as err:
        pause_for_quota(claim.run, err.message)
        raise ClaimAborted from err
    except TranslatorConfigError as err:
        close_units(claim.token, works, UnitStatus.FAILED, err.code, err.message)
        claims.release_claim(claim.token)  # the claim's other units are cancelled with the run
        controls.stop_run(claim.run.pk, err.code, err.message)
        raise ClaimAborted from err
    except Exception as err:
        failure = describe_exception(err)
        if failure.code == ErrorCode.INTERNAL_ERROR:
            logger.exception("Run %s: unexpected error in a unit", claim.run.pk)
        if failure.transient:
            claim.transient_failures += 1
            retry_units(claim.token, works, failure)
        else:
            close_units(claim.token, works, UnitStatus.FAILED, failure.code, failure.message)


def pause_for_quota(run: Run, message: str) -> None:
    from ..tasks import schedule_quota_retry

    paused = controls.pause_run(
        run.pk,
        code=ErrorCode.QUOTA_EXCEEDED,
        message=f"{message} The run is paused and tries again automatically; "
        "you can also resume it once the quota is back.",
    )
    if paused:
        schedule_quota_retry(run.pk)


def close_units(token: str, works: list[UnitWork], status: str, code: str, message: str) -> None:
    for work in works:
        if not work.done:
            claims.finish_unit(work.unit, token, status, error_code=code, error_message=message)
            work.done = True


def retry_units(token: str, works: list[UnitWork], failure: Failure) -> None:
    for work in works:
        if not work.done:
            claims.retry_later(work.unit, token, failure.code, failure.message)
            work.done = True


@dataclass(frozen=True)
class Failure:
    code: str
    message: str
    transient: bool = False


def describe_exception(err: Exception) -> Failure:
    """A stable error code, an editor-readable message and whether retrying may help."""
    if isinstance(err, UnitError):
        return Failure(err.code, err.message, err.transient)
    if isinstance(err, SourceDeletedError):
        return Failure(ErrorCode.SOURCE_DELETED, "The source object was deleted during the run.")
    if isinstance(err, DataError):
        # PostgreSQL refuses what SQLite silently stores, e.g. a translation too long for its
        # column: the object is invalid, retrying will not help.
        return Failure(
            ErrorCode.VALIDATION_ERROR,
            f"The translated object is invalid — a value does not fit its field ({err}).",
        )
    if isinstance(err, OperationalError):
        # Lock timeouts, deadlocks, serialization failures: the database was busy.
        return Failure(ErrorCode.INTERNAL_ERROR, f"The database was busy ({err}).", True)
    if isinstance(err, (ConnectionError, TimeoutError)):
        return Failure(
            ErrorCode.TRANSLATOR_ERROR, f"The translator could not be reached ({err}).", True
        )
    validation = find_validation_error(err)
    if validation is not None:
        return Failure(ErrorCode.VALIDATION_ERROR, validation_message(validation))
    return Failure(ErrorCode.INTERNAL_ERROR, f"{type(err).__name__}: {err}")


def find_validation_error(err: BaseException | None) -> ValidationError | None:
    # wagtail-localize turns a ValidationError without a field into
    # "AttributeError: ... no attribute 'error_dict'"; the real error is its context.
    while err is not None:
        if isinstance(err, ValidationError):
            return err
        err = err.__cause__ or err.__context__
    return None


def validation_message(err: ValidationError) -> str:
    if hasattr(err, "error_dict"):
        parts = [f"{name}: {' '.join(msgs)}" for name, msgs in err.message_dict.items()]
        return "The translated object is invalid — " + "; ".join(parts)
    return "The translated object is invalid — " + " ".join(err.messages)


# --- step 1 and 2: extraction, skips, string plans ---------------------------------------------


def prepare_object(run: Run, token: str, obj: ObjectWork) -> None:
    first = obj.units[0].unit
    obj.instance = load_source(run, first)
    if obj.instance is None:
        raise UnitError(ErrorCode.SOURCE_DELETED, "The source object no longer exists.")
    obj.version = row_fingerprint(obj.instance)
    source_hash, segments = hash_instance(obj.instance)
    obj.hashes = locale_hashes(source_hash, segments, [w.unit.target_locale_id for w in obj.units])
    obj.related_keys = {
        s.translation_key for s in segments if isinstance(s, RelatedObjectSegmentValue)
    }
    if run.mode == Mode.CHANGED:
        skip_unchanged(run, token, obj)
    open_units = [w for w in obj.units if not w.done]
    if not open_units:
        return
    if not isinstance(obj.instance, TranslatableMixin):
        return  # per-site settings are translated row to row in write_unit
    with transaction.atomic():
        obj.source, _created = TranslationSource.update_or_create_from_instance(obj.instance)
    obj.strings = load_source_strings(obj.source)
    plan_units(run, token, obj, open_units)


def check_source_unchanged(obj: ObjectWork) -> None:
    """Refuse a stale write: the source changed after it was extracted (retried later)."""
    if row_fingerprint(obj.instance) != obj.version:
        raise UnitError(
            ErrorCode.SOURCE_CHANGED,
            "The source was edited while it was being translated; it will be translated again.",
            transient=True,
        )


def locale_hashes(source_hash: str, segments: list, locale_ids: list[int]) -> dict[int, str]:
    """The source hash, per target locale, plus which related objects exist in that locale.

    A page chooses a snippet; until the snippet is translated the page's translation points to
    the source-locale snippet. Once it is translated, the page must be written again to point
    to it, although its own text did not change: the related objects available in the locale
    are part of what the target depends on.
    """
    related: dict[int, set] = {}
    for segment in segments:
        if isinstance(segment, RelatedObjectSegmentValue):
            related.setdefault(segment.content_type.pk, set()).add(segment.translation_key)
    if not related:
        return dict.fromkeys(locale_ids, source_hash)
    available: dict[int, list[str]] = {locale_id: [] for locale_id in locale_ids}
    for content_type_id, keys in related.items():
        model = ContentType.objects.get_for_id(content_type_id).model_class()
        rows = model._default_manager.filter(
            translation_key__in=keys, locale_id__in=locale_ids
        ).values_list("locale_id", "translation_key")
        for locale_id, key in rows:
            available[locale_id].append(f"{content_type_id}:{key}")
    return {
        locale_id: hashlib.sha256(json.dumps([source_hash, sorted(keys)]).encode()).hexdigest()
        for locale_id, keys in available.items()
    }


def load_source(run: Run, unit: Unit):
    model = unit.content_type.model_class()
    instance = model._default_manager.filter(pk=unit.object_id).first()
    if instance is None:
        return None
    if isinstance(instance, Page):
        instance = instance.specific
    if run.content_source == ContentSource.LATEST_DRAFT and hasattr(
        instance, "get_latest_revision_as_object"
    ):
        instance = instance.get_latest_revision_as_object()
    return instance


def skip_unchanged(run: Run, token: str, obj: ObjectWork) -> None:
    """Skip locales with nothing to do: same source hash as their last machine translation,
    target present, and already in the live/draft state this run asks for."""
    first = obj.units[0].unit
    locale_ids = [w.unit.target_locale_id for w in obj.units]
    last_hashes = last_translated_hashes(first.object_key, locale_ids)
    targets = load_targets(obj.instance, locale_ids) if last_hashes else {}
    wants_publish = decide_publish(run, obj.instance)
    related_in_run = related_translated_by_run(run, obj)
    for work in obj.units:
        locale_id = work.unit.target_locale_id
        target = targets.get(locale_id)
        if target is None or last_hashes.get(locale_id) != obj.hashes[locale_id]:
            continue
        if locale_id in related_in_run:
            continue  # a snippet it uses is being translated: point the target to it
        if wants_publish and getattr(target, "has_unpublished_changes", False):
            continue  # e.g. a canary's draft that a full run now publishes
        claims.finish_unit(
            work.unit,
            token,
            UnitStatus.SKIPPED,
            error_code=ErrorCode.UNCHANGED,
            error_message="Unchanged since its last machine translation.",
            source_hash=obj.hashes[work.unit.target_locale_id],
        )
        work.done = True


def related_translated_by_run(run: Run, obj: ObjectWork) -> set[int]:
    """Locales in which this run translates an object the source refers to."""
    if not obj.related_keys:
        return set()
    return set(
        Unit.objects.filter(run_id=run.pk, object_key__in=obj.related_keys)
        .filter(status__in=[*UnitStatus.in_flight, UnitStatus.SUCCEEDED])
        .values_list("target_locale_id", flat=True)
    )


def last_translated_hashes(object_key, locale_ids: list[int]) -> dict[int, str]:
    rows = (
        Unit.objects.filter(
            object_key=object_key, target_locale_id__in=locale_ids, status=UnitStatus.SUCCEEDED
        )
        .exclude(source_hash="")
        .order_by("target_locale_id", "-finished_at")
        .values_list("target_locale_id", "source_hash")
    )
    hashes: dict[int, str] = {}
    for locale_id, value in rows:
        hashes.setdefault(locale_id, value)
    return hashes


def plan_units(run: Run, token: str, obj: ObjectWork, works: list[UnitWork]) -> None:
    locale_ids = [w.unit.target_locale_id for w in works]
    existing = existing_translations(obj.strings, locale_ids)
    translations = {
        t.target_locale_id: t
        for t in Translation.objects.filter(source=obj.source, target_locale_id__in=locale_ids)
    }
    targets = load_targets(obj.instance, locale_ids)
    excluded = get_settings().EXCLUDE_FIELDS.get(model_label(type(obj.instance)), [])
    done_by_canary = translated_by_canary(run, obj)
    for work in works:
        locale_id = work.unit.target_locale_id
        work.target = targets.get(locale_id)
        try:
            guard_target(run, obj, work, translations.get(locale_id))
        except UnitSkipped as err:
            close_units(token, [work], UnitStatus.SKIPPED, err.code, err.message)
            continue
        work.needs = plan_strings(
            obj.strings,
            existing,
            locale_id,
            # What a promoted canary already translated is kept, never re-billed.
            mode=Mode.CHANGED if locale_id in done_by_canary else run.mode,
            excluded_fields=excluded,
            slug_value=slug_for(run, obj, work),
        )


def translated_by_canary(run: Run, obj: ObjectWork) -> set[int]:
    """Target locales of this object that the canary this run was promoted from translated."""
    if not run.promoted_from_id or run.mode == Mode.CHANGED:
        return set()
    return set(
        Unit.objects.filter(
            run_id=run.promoted_from_id,
            object_key=obj.units[0].unit.object_key,
            status=UnitStatus.SUCCEEDED,
        ).values_list("target_locale_id", flat=True)
    )


def load_targets(instance, locale_ids: list[int]) -> dict[int, models.Model]:
    if not isinstance(instance, TranslatableMixin):
        return site_settings.target_rows(instance, locale_ids)
    model = Page if isinstance(instance, Page) else type(instance)
    qs = model._default_manager.filter(
        translation_key=instance.translation_key, locale_id__in=locale_ids
    )
    if isinstance(instance, Page):
        qs = qs.filter(alias_of__isnull=True).specific()
    return {target.locale_id: target for target in qs}


def guard_target(run: Run, obj: ObjectWork, work: UnitWork, translation: Translation | None):
    """Skip targets a human owns: sync stopped, edited outside the pipeline, or locked."""
    if run.mode == Mode.OVERWRITE:
        return
    target = work.target
    if translation is not None and not translation.enabled:
        raise UnitSkipped(
            ErrorCode.SYNC_STOPPED,
            "Its synced translation was stopped, so the target is edited by hand.",
        )
    if target is None:
        return
    if getattr(target, "locked", False):
        raise UnitSkipped(ErrorCode.TARGET_LOCKED, "The target page is locked.")
    if edited_outside_pipeline(obj.source, target, translation):
        raise UnitSkipped(
            ErrorCode.MANUAL_EDITS_KEPT,
            "The target was edited outside the translation workflow; its edits are kept.",
        )


def edited_outside_pipeline(source, target, translation: Translation | None) -> bool:
    if not hasattr(target, "latest_revision_id"):
        return False
    if translation is None:
        # A translation that wagtail-localize never wrote was made by hand (or copied).
        return target.latest_revision_id is not None
    last_log = (
        TranslationLog.objects.filter(source=source, locale_id=target.locale_id)
        .order_by("-created_at", "-pk")
        .values_list("revision_id", flat=True)
        .first()
    )
    return last_log is not None and last_log != target.latest_revision_id


def slug_for(run: Run, obj: ObjectWork, work: UnitWork):
    if not isinstance(obj.instance, Page):
        return None
    if work.target is not None:
        return work.target.slug  # never move a live URL: no stray redirects
    return {"derive": DERIVE_SLUG, "keep": obj.instance.slug, "translate": None}[run.slug_policy]


# --- step 3: translation ---------------------------------------------------------------------


def translate_locale(run: Run, translator, works: list[UnitWork]) -> None:
    """One translator call for every string the claim's units need in one locale."""
    locale = works[0].unit.target_locale
    texts: dict[str, UnitWork] = {}
    for work in works:
        for s in work.needs.to_translate:
            texts.setdefault(s.data, work)
    memory = translation_memory(run, list(texts), locale) if run.mode == Mode.CHANGED else {}
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
            results = (
                call_translator(translator, run.source_locale, locale, to_send) if to_send else {}
            )
        except TranslatorError as err:
            # Requests answered before the failure (e.g. the quota ran out mid-call) are paid
            # for: keep them, so resuming does not send them again.
            partial = getattr(err, "partial_results", None) or {}
            accept_results(run, translator, works, texts, memory, as_texts(partial))
            record_partial_billing(works)
            raise
        accept_results(run, translator, works, texts, memory, results)
    finally:
        # Only once the translations are stored: a worker waiting for them then finds them.
        reservations.release(token)


def as_texts(values: dict) -> dict[str, str]:
    return {source.data: value.data for source, value in values.items()}


def reserve_texts(run, locale, token, to_send, works, memory):
    """Reserve the texts to send; units needing a text another worker is translating come back
    shortly (it will be in memory then). Returns the texts to send and the units that stay."""
    elsewhere = reservations.reserve(locale.pk, to_send, token)
    # Translated and stored since the memory lookup (their reservation already released).
    memory.update(translation_memory(run, [t for t in to_send if t not in elsewhere], locale))
    waiting = [w for w in works if any(s.data in elsewhere for s in w.needs.to_translate)]
    for work in waiting:
        claims.release_unit(work.unit, token, PARENT_WAIT_SECONDS)
        work.done = True
    staying = [w for w in works if not w.done]
    needed = {s.data for w in staying for s in w.needs.to_translate}
    return [t for t in to_send if t in needed and t not in memory and t not in elsewhere], staying


def accept_results(run, translator, works, texts, memory, results: dict[str, str]) -> None:
    """Attach translations to their units and store them at once.

    Optional translator contract: ``billed_characters`` per text, and ``failed_texts`` it
    refused with a reason (e.g. too large for one request) so only their units fail.
    """
    if not works:
        return
    billed = getattr(translator, "billed_characters", None) or {}
    refused = getattr(translator, "failed_texts", None) or {}
    for text in results:
        texts[text].billed += int(billed.get(text, 0))
    for work in works:
        for s in work.needs.to_translate:
            value = memory.get(s.data) or results.get(s.data)
            if value is not None:
                work.translated[s] = value
            elif s.data in refused:
                work.refused.setdefault(*refused[s.data])
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
            work.string_changes = upsert_string_translations(run, locale.pk, valid)


def call_translator(translator, source_locale, locale, texts: list[str]) -> dict[str, str]:
    raw = translator.translate(source_locale, locale, [StringValue(t) for t in texts])
    return {source.data: value.data for source, value in raw.items() if value is not None}


def translation_memory(run: Run, texts: list[str], locale: Locale) -> dict[str, str]:
    """Existing valid translations of the same source text into the locale (manual first)."""
    rows = (
        StringTranslation.objects.filter(
            translation_of__locale_id=run.source_locale_id,
            translation_of__data__in=texts,
            locale=locale,
            has_error=False,
        )
        .order_by("translation_of__data", "-translation_type", "-updated_at")
        .values_list("translation_of__data", "data", "translation_type")
    )
    memory: dict[str, str] = {}
    for text, data, kind in rows:
        if kind == StringTranslation.TRANSLATION_TYPE_MANUAL or text not in memory:
            memory[text] = data
    return memory


def valid_markup(source: str, translated: str) -> bool:
    try:
        StringValue.from_translated_html(translated)
        validate_translation_links(source, translated)
    except ValueError:
        return False
    return True


# --- step 4: store strings, write the target --------------------------------------------------


def write_unit(run: Run, token: str, obj: ObjectWork, work: UnitWork) -> None:
    if not isinstance(obj.instance, TranslatableMixin):
        write_site_setting(run, token, obj, work)
        return
    resolve_derived_slug(obj, work)
    store_strings(run, obj, work)
    publish = decide_publish(run, obj.instance)
    if run.is_canary and not can_be_draft(obj.instance):
        finish_without_write(token, obj, work)  # canary output is drafts only
        return
    if wait_for_parent(run, token, obj, work):
        return
    with transaction.atomic():
        if not claims.hold_lease(work.unit, token):
            work.done = True
            return  # lost the lease: a newer attempt owns this unit now
        check_source_unchanged(obj)
        check_complete(obj.source, work.unit.target_locale)
        revert_state = snapshot_target(work.target)
        written = write_target(
            obj.source, work.unit.target_locale, user=run.created_by, publish=publish
        )
        claims.finish_unit(
            work.unit,
            token,
            UnitStatus.SUCCEEDED,
            error_code="",
            error_message="",
            strings_translated=work.needs.count,
            billed_characters=F("billed_characters") + work.billed,
            source_hash=obj.hashes[work.unit.target_locale_id],
            target_object_id=str(written.instance.pk),
            revert_state={
                **revert_state,
                "created": written.created,
                "revision_id": written.revision_id,
                "translation_created": written.translation_created,
                "strings": work.string_changes,
                "written": row_fingerprint(written.instance),
            },
        )
    work.done = True


def resolve_derived_slug(obj: ObjectWork, work: UnitWork) -> None:
    slug = next((s for s, v in work.needs.resolved.items() if v is DERIVE_SLUG), None)
    if slug is None:
        return
    title = next((s for s in obj.strings if s.path == "title"), None)
    title_text = work.translated.get(title) if title else None
    if title_text is None and title is not None:
        title_text = (
            StringTranslation.objects.filter(
                translation_of_id=title.string_id,
                context_id=title.context_id,
                locale_id=work.unit.target_locale_id,
            )
            .values_list("data", flat=True)
            .first()
        )
    derived = page_slug(strip_tags_text(title_text or slug.data))
    work.needs.resolved[slug] = derived or slug.data


def strip_tags_text(html: str) -> str:
    return unescape(strip_tags(html))


def store_strings(run: Run, obj: ObjectWork, work: UnitWork) -> None:
    """Store the strings copied rather than translated (non-prose, slug), then refuse to write
    a target whose translated strings are broken or missing."""
    invalid = [s for s, text in work.translated.items() if not valid_markup(s.data, text)]
    missing = [s for s in work.needs.to_translate if s not in work.translated]
    with transaction.atomic():
        copied = upsert_string_translations(run, work.unit.target_locale_id, work.needs.resolved)
    work.string_changes = {
        key: work.string_changes.get(key, []) + copied.get(key, [])
        for key in ("created", "updated")
    }
    if work.refused:
        code, message = next(iter(work.refused.items()))
        raise UnitError(code, f"{message} The target was not written.")
    if invalid:
        raise UnitError(
            ErrorCode.INVALID_MARKUP,
            f"The translator broke the markup of {len(invalid)} string(s), e.g. "
            f"{invalid[0].data[:80]!r}; the target was not written.",
        )
    if missing:
        raise UnitError(
            ErrorCode.TRANSLATOR_ERROR,
            f"The translator returned nothing for {len(missing)} string(s); "
            "the target was not written.",
        )


def upsert_string_translations(
    run: Run, locale_id: int, values: dict[SourceString, str]
) -> dict[str, list]:
    """Store machine translations; returns what changed: created keys, previous values."""
    if not values:
        return {}
    existing = {
        (st.translation_of_id, st.context_id): st
        for st in StringTranslation.objects.filter(
            locale_id=locale_id,
            translation_of_id__in={s.string_id for s in values},
            context_id__in={s.context_id for s in values},
        )
    }
    now = timezone.now()
    tool = f"{run.translator_class.rsplit('.', 1)[-1]} (bulk)"
    common = {
        "translation_type": StringTranslation.TRANSLATION_TYPE_MACHINE,
        "tool_name": tool,
        "last_translated_by": run.created_by,
        "has_error": False,
        "field_error": "",
        "updated_at": now,
    }
    to_update, to_create, previous = [], [], []
    for s, data in values.items():
        row = existing.get((s.string_id, s.context_id))
        if row is None:
            to_create.append(
                StringTranslation(
                    translation_of_id=s.string_id,
                    context_id=s.context_id,
                    locale_id=locale_id,
                    data=data,
                    created_at=now,
                    **common,
                )
            )
        else:
            previous.append(string_translation_state(row))
            row.data = data
            for name, value in common.items():
                setattr(row, name, value)
            to_update.append(row)
    StringTranslation.objects.bulk_create(to_create, ignore_conflicts=True)
    StringTranslation.objects.bulk_update(to_update, ["data", *common])
    return {
        "created": [[st.translation_of_id, st.context_id] for st in to_create],
        "updated": previous,
    }


REVERTIBLE_STRING_FIELDS = (
    "data",
    "translation_type",
    "tool_name",
    "last_translated_by_id",
    "has_error",
    "field_error",
    "updated_at",
)


def string_translation_state(row: StringTranslation) -> dict[str, Any]:
    state = {name: getattr(row, name) for name in REVERTIBLE_STRING_FIELDS}
    state["updated_at"] = row.updated_at.isoformat()
    return {"id": row.pk, **state}


def decide_publish(run: Run, instance) -> bool:
    if not can_be_draft(instance):
        return True
    if run.is_canary:
        return False
    if run.publish_policy == PublishPolicy.PUBLISH:
        return True
    if run.publish_policy == PublishPolicy.MIRROR:
        return bool(instance.live)
    return False


def finish_without_write(token: str, obj: ObjectWork, work: UnitWork) -> None:
    claims.finish_unit(
        work.unit,
        token,
        UnitStatus.SUCCEEDED,
        error_message=(
            "Strings translated and stored; the target is not written by a canary because "
            "this model has no drafts. Promoting the canary writes it."
        ),
        strings_translated=work.needs.count,
        billed_characters=F("billed_characters") + work.billed,
    )
    work.done = True


def wait_for_parent(run: Run, token: str, obj: ObjectWork, work: UnitWork) -> bool:
    """Release a new page whose parent this run has yet to write in that locale.

    Writing it now would make wagtail-localize create the parent as a live, untranslated
    alias. Returns True when the unit was given back to be retried shortly.
    """
    if work.target is not None or not isinstance(obj.instance, Page):
        return False
    parent = obj.instance.get_parent()
    if parent is None or parent.depth <= 1:
        return False
    locale_id = work.unit.target_locale_id
    if Page.objects.filter(
        translation_key=parent.translation_key, locale_id=locale_id, alias_of__isnull=True
    ).exists():
        return False
    parent_pending = Unit.objects.filter(
        object_key=parent.translation_key,
        target_locale_id=locale_id,
        status__in=UnitStatus.in_flight,
    ).exists()
    if not parent_pending:
        return False
    claims.release_unit(work.unit, token, PARENT_WAIT_SECONDS)
    work.done = True
    return True


def write_site_setting(run: Run, token: str, obj: ObjectWork, work: UnitWork) -> None:
    if run.is_canary:
        # A site's settings row has no draft to review, and canary output is drafts only.
        claims.finish_unit(
            work.unit,
            token,
            UnitStatus.SKIPPED,
            error_code=ErrorCode.CANARY_NOT_SAMPLED,
            error_message="Site settings have no drafts: the full run translates them.",
        )
        work.done = True
        return
    # Translate before opening the write transaction: no engine call while holding locks.
    locale = work.unit.target_locale
    translator = build_translator(run.translator_class, run.translator_options)
    translated = site_settings.translate_segments(
        obj.instance, run.source_locale, locale, translator
    )
    with transaction.atomic():
        if not claims.hold_lease(work.unit, token):
            work.done = True
            return
        check_source_unchanged(obj)
        row = site_settings.target_row(obj.instance, locale)
        revert_state = site_settings.snapshot_row(row)
        site_settings.apply_segments(obj.instance, row, run.source_locale, locale, translated)
        claims.finish_unit(
            work.unit,
            token,
            UnitStatus.SUCCEEDED,
            error_code="",
            error_message="",
            strings_translated=translated.strings,
            billed_characters=F("billed_characters") + translated.billed,
            source_hash=obj.hashes[work.unit.target_locale_id],
            target_object_id=str(row.pk),
            revert_state={**revert_state, "written": row_fingerprint(row)},
        )
    work.done = True
