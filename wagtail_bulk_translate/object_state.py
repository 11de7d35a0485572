"""One object's translation state per target locale: what the editor's Translations panel shows.

The per-object view of the coverage report (coverage.py): "outdated" is the very condition the
report counts with (``coverage.outdated_condition``), so the panel and the report agree, and
"edited by hand" reads the same wagtail-localize records as the engine's manual-edit guard
(``engine.plan.guard_target``), so a target the panel calls edited by hand is one a "changed"
run keeps. A constant number of queries whatever the number of locales (about seven).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.db.models import BooleanField, Case, Value, When
from django.utils.translation import gettext_lazy as _
from wagtail.admin.utils import get_user_display_name
from wagtail.models import DraftStateMixin, Locale, Page, Revision

from .coverage import (
    Outdating,
    outdated_condition,
    rule_changes_by_locale,
    signed_tool_names,
)
from .engine.needs_work import edited_at_field
from .localize.sources import PipelineRecord, pipeline_records
from .models import TRANSLATED, Unit, UnitStatus

# Source revisions read to date "outdated since": an object edited more often than this since
# its oldest translation is still called outdated, without the date.
REVISIONS_READ = 500


class TranslationState(models.TextChoices):
    """The state of one target locale, for an editor; the first that applies, in this order."""

    MISSING = "missing", _("Missing")
    """No translation in the locale (a page alias counts as missing, as in the report)."""
    IN_PROGRESS = "in_progress", _("Being translated")
    """A run holds the object for this locale right now."""
    EDITED_BY_HAND = "edited_by_hand", _("Edited by hand")
    """Edited outside the translation pipeline: runs keep its edits (outside overwrite mode)."""
    OUTDATED = "outdated", _("Outdated")
    """The source changed after its last translation (or the translator's output did)."""
    DRAFT_WAITING = "draft_waiting", _("Up to date (draft)")
    """Machine-translated as a draft that nobody has published yet."""
    TRANSLATED = "translated", _("Translated")
    """Translated; the model records no edit times, so whether it is current is unknown."""
    UP_TO_DATE = "up_to_date", _("Up to date")


@dataclass(frozen=True)
class SourceRevision:
    """A revision of the source, for people: when and by whom."""

    revision_id: int
    created_at: datetime.datetime
    by: str  # the user's display name; "" when unknown

    @classmethod
    def of(cls, revision: Revision) -> SourceRevision:
        user = revision.user
        return cls(revision.pk, revision.created_at, get_user_display_name(user) if user else "")


@dataclass(frozen=True)
class LastTranslation:
    """The last time a run translated the object into a locale (or found it unchanged)."""

    run_id: int
    finished_at: datetime.datetime | None
    source_revision_id: int | None


@dataclass(frozen=True)
class LocaleState:
    locale: Locale
    state: str  # a TranslationState
    target: models.Model | None
    last: LastTranslation | None
    in_flight_run_id: int | None = None
    outdated: bool = False
    # The first source revision after the last translation ("outdated since"); None when the
    # output signature made it outdated, or when it is too far back to read.
    changed: SourceRevision | None = None
    draft_waiting: bool = False
    edited_by_hand: bool = False

    @property
    def label(self) -> str:
        return str(TranslationState(self.state).label)


def translation_rows(instance: models.Model) -> models.QuerySet:
    """The rows that hold the object's translations (pages: not aliases, as in the report)."""
    if isinstance(instance, Page):
        return Page.objects.filter(alias_of__isnull=True)
    return type(instance)._default_manager.all()


def source_states(instance: Any, locale_ids: list[int] | None = None) -> list[LocaleState]:
    """The state of ``instance``'s translation into every other locale (or ``locale_ids``),
    ``instance`` being the source."""
    locales = Locale.objects.exclude(pk=instance.locale_id).order_by("language_code")
    if locale_ids is not None:
        locales = locales.filter(pk__in=locale_ids)
    targets_locales = list(locales)
    ids = [locale.pk for locale in targets_locales]
    if not ids:
        return []
    targets = load_targets(instance, targets_locales)
    lasts, in_flight = unit_history(instance.translation_key, ids)
    records = pipeline_records(instance.translation_key, instance.locale_id, ids)
    changes = first_changes_after(instance, targets, lasts)
    return [
        locale_state(
            locale,
            targets.get(locale.pk),
            lasts.get(locale.pk),
            in_flight.get(locale.pk),
            records.get(locale.pk),
            changes.get(locale.pk),
            knows_edits=edited_at_field(type(instance)) is not None,
        )
        for locale in targets_locales
    ]


def load_targets(instance: Any, locales: list[Locale]) -> dict[int, Any]:
    """{locale id: target row}, each annotated ``is_outdated`` by the coverage condition."""
    rows = translation_rows(instance).filter(
        translation_key=instance.translation_key, locale__in=locales
    )
    edited_at = edited_at_field(type(instance))
    if edited_at is not None:
        sources = translation_rows(instance).filter(pk=instance.pk)
        source_locale = Locale(pk=instance.locale_id)
        outdating = Outdating(
            signed_tool_names(source_locale, locales),
            rule_changes_by_locale(source_locale, locales),
        )
        condition = outdated_condition(sources, edited_at, outdating)
        rows = rows.annotate(
            is_outdated=Case(When(condition, then=Value(True)), default=Value(False)),
        )
    else:
        rows = rows.annotate(is_outdated=Value(False, output_field=BooleanField()))
    return {row.locale_id: row for row in rows}


def unit_history(
    object_key: Any, locale_ids: list[int]
) -> tuple[dict[int, LastTranslation], dict[int, int]]:
    """({locale id: last translation}, {locale id: run holding it now}) in one query."""
    in_flight_q = models.Q(status__in=UnitStatus.in_flight)
    rows = (
        Unit.objects.filter(object_key=object_key, target_locale_id__in=locale_ids)
        .filter(TRANSLATED | in_flight_q)
        .values_list("target_locale_id", "run_id", "status", "finished_at", "source_revision_id")
    )
    lasts: dict[int, LastTranslation] = {}
    in_flight: dict[int, int] = {}
    for locale_id, run_id, status, finished_at, revision_id in rows:
        if status in UnitStatus.in_flight:
            in_flight[locale_id] = run_id
            continue
        known = lasts.get(locale_id)
        if known is None or is_later(finished_at, known.finished_at):
            lasts[locale_id] = LastTranslation(run_id, finished_at, revision_id)
    return lasts, in_flight


def is_later(when: datetime.datetime | None, than: datetime.datetime | None) -> bool:
    return when is not None and (than is None or when > than)


def first_changes_after(
    instance: Any, targets: dict[int, Any], lasts: dict[int, LastTranslation]
) -> dict[int, SourceRevision]:
    """{locale id: the first source revision after its last translation}, for the outdated
    targets, from one query over the source's revisions since the oldest of them."""
    since: dict[int, datetime.datetime] = {}
    for locale_id, target in targets.items():
        finished_at = lasts[locale_id].finished_at if locale_id in lasts else None
        if target.is_outdated and finished_at is not None:
            since[locale_id] = finished_at
    if not since or not hasattr(instance, "revisions"):
        return {}
    revisions = list(
        instance.revisions.filter(created_at__gt=min(since.values()))
        .select_related("user")
        .order_by("created_at", "pk")[:REVISIONS_READ]
    )
    changes = {}
    for locale_id, finished_at in since.items():
        first = next((r for r in revisions if r.created_at > finished_at), None)
        if first is not None:
            changes[locale_id] = SourceRevision.of(first)
    return changes


def locale_state(
    locale: Locale,
    target: Any,
    last: LastTranslation | None,
    in_flight_run_id: int | None,
    record: PipelineRecord | None,
    changed: SourceRevision | None,
    *,
    knows_edits: bool,
) -> LocaleState:
    facts: dict[str, Any] = {"locale": locale, "target": target, "last": last}
    facts["in_flight_run_id"] = in_flight_run_id
    if target is not None:
        hand = is_edited_by_hand(target, record)
        facts.update(
            outdated=bool(target.is_outdated),
            changed=changed,
            edited_by_hand=hand,
            draft_waiting=not hand and has_unpublished_draft(target),
        )
    facts["state"] = state_of(facts, knows_edits=knows_edits)
    return LocaleState(**facts)


def state_of(facts: dict[str, Any], *, knows_edits: bool) -> str:
    if facts["in_flight_run_id"] is not None:
        return TranslationState.IN_PROGRESS
    if facts["target"] is None:
        return TranslationState.MISSING
    for flag, state in (
        ("edited_by_hand", TranslationState.EDITED_BY_HAND),
        ("outdated", TranslationState.OUTDATED),
        ("draft_waiting", TranslationState.DRAFT_WAITING),
    ):
        if facts[flag]:
            return state
    return TranslationState.UP_TO_DATE if knows_edits else TranslationState.TRANSLATED


def is_edited_by_hand(target: Any, record: PipelineRecord | None) -> bool:
    """The engine's guard (engine.plan.edited_outside_pipeline) on the panel's records."""
    if not hasattr(target, "latest_revision_id"):
        return False
    if record is None:
        # A translation that wagtail-localize never wrote was made by hand (or copied).
        return target.latest_revision_id is not None
    if not record.enabled:
        return True
    logged = record.last_logged_revision
    return logged is not None and logged != target.latest_revision_id


def has_unpublished_draft(target: Any) -> bool:
    return isinstance(target, DraftStateMixin) and bool(target.has_unpublished_changes)


@dataclass(frozen=True)
class TargetOrigin:
    """Where a target came from: the run that last wrote it, from which source revision, and
    whether the source has changed since."""

    run_id: int
    written_at: datetime.datetime | None
    source: Any  # the source object (None: deleted since)
    source_revision: SourceRevision | None
    source_state: LocaleState | None  # this locale seen from the source


def target_origin(instance: Any) -> TargetOrigin | None:
    """The run that last wrote ``instance`` (None: no run ever did, it is not a run's target)."""
    unit = (
        Unit.objects.filter(
            TRANSLATED,
            status=UnitStatus.SUCCEEDED,
            object_key=instance.translation_key,
            target_locale_id=instance.locale_id,
        )
        .select_related("run")
        .order_by("-finished_at", "-pk")
        .first()
    )
    if unit is None:
        return None
    source = (
        translation_rows(instance)
        .filter(translation_key=instance.translation_key, locale_id=unit.run.source_locale_id)
        .first()
    )
    revision = None
    if unit.source_revision_id is not None:
        found = Revision.objects.filter(pk=unit.source_revision_id).select_related("user").first()
        revision = SourceRevision.of(found) if found else None
    states = source_states(source, [instance.locale_id]) if source is not None else []
    return TargetOrigin(
        run_id=unit.run_id,
        written_at=unit.finished_at,
        source=source,
        source_revision=revision,
        source_state=states[0] if states else None,
    )
