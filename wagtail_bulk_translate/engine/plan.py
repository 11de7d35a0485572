"""Step 2: decide, per unit, which strings need a translation and which are resolved without one.

Manual translations are kept (outside overwrite mode), non-prose and excluded fields are copied
unchanged, page slugs follow the slug policy, and targets a human owns (sync stopped, edited
outside the pipeline, locked) are skipped with a reason.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from wagtail.models import Page, TranslatableMixin

from ..conf import get_settings
from ..errors import ErrorCode, UnitSkipped
from ..localize import site_settings
from ..localize.segments import SourceString
from ..localize.sources import last_logged_revision, translations_by_locale
from ..localize.strings import existing_translations
from ..localize.target_writer import can_be_draft
from ..models import Mode, PublishPolicy, Run, SlugPolicy, Unit, UnitStatus
from ..scope.definition import model_label
from ..scope.permissions import check_unit_permitted
from .failures import close_units
from .text_kinds import is_non_prose
from .work import ObjectWork, StringNeeds, UnitWork

# Placeholder for a slug derived from the translated title, once that is known (see write).
DERIVE_SLUG = object()


def plan_units(run: Run, token: str, obj: ObjectWork, works: list[UnitWork]) -> None:
    locale_ids = [w.unit.target_locale_id for w in works]
    tools = {w.unit.target_locale_id: w.tool for w in works}
    changes = {w.unit.target_locale_id: w.rule_changes for w in works}
    existing = existing_translations(obj.strings, locale_ids, tools, changes)
    translations = translations_by_locale(obj.source, locale_ids)
    targets = load_targets(obj.instance, locale_ids)
    excluded = get_settings().EXCLUDE_FIELDS.get(model_label(type(obj.instance)), [])
    done_by_canary = translated_by_canary(run, obj)
    for work in works:
        locale_id = work.unit.target_locale_id
        work.target = targets.get(locale_id)
        try:
            check_unit_permitted(
                run,
                obj.instance,
                work.unit.target_locale,
                publish=decide_publish(run, obj.instance),
            )
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


def needs_translation(mode: str, existing: tuple[bool, bool] | None) -> bool:
    """Whether a string with this existing translation (is manual, has error) is redone."""
    if existing is None:
        return True
    is_manual, has_error = existing
    if mode == Mode.OVERWRITE:
        return True
    if is_manual:
        return False  # a human's translation is never replaced outside overwrite mode
    return has_error or mode == Mode.REFRESH


def is_excluded(path: str, excluded_fields: list[str]) -> bool:
    return any(path == name or path.startswith(f"{name}.") for name in excluded_fields)


def copied_value(
    string: SourceString, *, excluded_fields: list[str], slug_value: Any = None
) -> Any:
    """What to store for a string without asking the translator, or None to translate it."""
    if string.path == "slug" and slug_value is not None:
        return slug_value
    if is_excluded(string.path, excluded_fields) or is_non_prose(string.data):
        return string.data
    return None


def plan_strings(
    strings: list[SourceString],
    existing: dict,
    locale_id: int,
    *,
    mode: str,
    excluded_fields: list[str],
    slug_value: Any,
) -> StringNeeds:
    """Decide, string by string, what a target locale needs.

    ``slug_value`` is the slug to store for the page's ``slug`` segment (None: translate it).
    Non-prose strings and excluded fields are copied unchanged instead of paid for.
    """
    needs = StringNeeds()
    for s in strings:
        if not needs_translation(mode, existing.get((s.string_id, s.context_id, locale_id))):
            continue
        value = copied_value(s, excluded_fields=excluded_fields, slug_value=slug_value)
        if value is None:
            needs.to_translate.append(s)
        else:
            needs.resolved[s] = value
    return needs


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


def load_targets(instance: models.Model, locale_ids: list[int]) -> dict[int, models.Model]:
    if not isinstance(instance, TranslatableMixin):
        return site_settings.target_rows(instance, locale_ids)
    model = Page if isinstance(instance, Page) else type(instance)
    qs = model._default_manager.filter(
        translation_key=instance.translation_key, locale_id__in=locale_ids
    )
    if isinstance(instance, Page):
        qs = qs.filter(alias_of__isnull=True).specific()
    return {target.locale_id: target for target in qs}


def guard_target(run: Run, obj: ObjectWork, work: UnitWork, translation: Any) -> None:
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
    if edited_outside_pipeline(obj, target, translation):
        raise UnitSkipped(
            ErrorCode.MANUAL_EDITS_KEPT,
            "The target was edited outside the translation workflow; its edits are kept.",
        )


def edited_outside_pipeline(obj: ObjectWork, target: Any, translation: Any) -> bool:
    if not hasattr(target, "latest_revision_id"):
        return False
    if translation is None:
        # A translation that wagtail-localize never wrote was made by hand (or copied).
        return target.latest_revision_id is not None
    last_log = last_logged_revision(obj.source, target.locale_id)
    return last_log is not None and last_log != target.latest_revision_id


def slug_for(run: Run, obj: ObjectWork, work: UnitWork) -> Any:
    if not isinstance(obj.instance, Page):
        return None
    if work.target is not None:
        return work.target.slug  # never move a live URL: no stray redirects
    policies: dict[str, Any] = {
        SlugPolicy.DERIVE: DERIVE_SLUG,
        SlugPolicy.KEEP: source_slug(obj.instance),
        SlugPolicy.TRANSLATE: None,
    }
    return policies[run.slug_policy]


def source_slug(page: Any) -> str:
    return page.slug


def decide_publish(run: Run, instance: Any) -> bool:
    if not can_be_draft(instance):
        return True
    if run.is_canary:
        return False
    if run.publish_policy == PublishPolicy.PUBLISH:
        return True
    if run.publish_policy == PublishPolicy.MIRROR:
        return bool(instance.live)
    return False
