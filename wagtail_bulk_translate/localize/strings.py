"""wagtail-localize's StringTranslations: what exists, translation memory, storing, restoring."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Exists, F, OuterRef
from django.utils import timezone
from wagtail_localize.models import StringTranslation
from wagtail_localize.strings import StringValue, validate_translation_links

from ..glossary.staleness import PairChanges
from ..revert.state import StringChanges
from .segments import SourceString
from .tool_names import is_outdated_tool, outdated_tool_names

# Fields of a StringTranslation a run overwrites, so revert can put them back.
REVERTIBLE_STRING_FIELDS = (
    "data",
    "translation_type",
    "tool_name",
    "last_translated_by_id",
    "has_error",
    "field_error",
    "updated_at",
)


def existing_translations(
    strings: list[SourceString],
    locale_ids: list[int],
    current_tools: Mapping[int, str] | None = None,
    changes: Mapping[int, PairChanges] | None = None,
) -> dict[tuple[int, int, int], tuple[bool, bool]]:
    """{(string_id, context_id, locale_id): (is manual, must be redone)} in one query.

    A translation must be redone when it has an error, when the machine wrote it under an
    output signature other than today's (``current_tools``: {locale id: machine_tool_name}),
    or before a glossary term occurring in its text or the house style changed (``changes``:
    {locale id: the pair's changes}).
    """
    stored = [s for s in strings if s.string_id is not None]
    if not stored:
        return {}
    rows = StringTranslation.objects.filter(
        translation_of_id__in={s.string_id for s in stored},
        context_id__in={s.context_id for s in stored},
        locale_id__in=locale_ids,
    ).values_list(
        "translation_of_id",
        "context_id",
        "locale_id",
        "translation_type",
        "has_error",
        "tool_name",
        "updated_at",
    )
    tools, changes = current_tools or {}, changes or {}
    texts = {s.string_id: s.data for s in stored}
    return {
        (s, c, loc): (
            kind == StringTranslation.TRANSLATION_TYPE_MANUAL,
            err
            or (
                kind == StringTranslation.TRANSLATION_TYPE_MACHINE
                and (
                    is_outdated_tool(tool, tools.get(loc, ""))
                    or outdated_by_change(changes.get(loc), texts[s], made_at)
                )
            ),
        )
        for s, c, loc, kind, err, tool, made_at in rows
    }


def outdated_by_change(changes: PairChanges | None, text: str, made_at: Any) -> bool:
    return bool(changes) and changes.outdating(text, made_at) is not None  # type: ignore[union-attr]


def translation_memory(
    source_locale_id: int,
    texts: list[str],
    locale_id: int,
    current_tool: str = "",
    changes: PairChanges | None = None,
) -> dict[str, str]:
    """Existing valid translations of the same source text into the locale (manual first),
    leaving out machine translations written under an outdated output signature or before a
    glossary term in the text (or the house style) changed."""
    rows = (
        StringTranslation.objects.filter(
            translation_of__locale_id=source_locale_id,
            translation_of__data__in=texts,
            locale_id=locale_id,
            has_error=False,
        )
        .exclude(outdated_tool_names(current_tool))
        .order_by("translation_of__data", "-translation_type", "-updated_at")
        .values_list("translation_of__data", "data", "translation_type", "updated_at")
    )
    memory: dict[str, str] = {}
    for text, data, kind, made_at in rows:
        if kind == StringTranslation.TRANSLATION_TYPE_MANUAL or (
            text not in memory and not outdated_by_change(changes, text, made_at)
        ):
            memory[text] = data
    return memory


def valid_markup(source: str, translated: str) -> bool:
    """Whether wagtail-localize accepts ``translated`` for ``source`` (tags and link ids)."""
    try:
        StringValue.from_translated_html(translated)
        validate_translation_links(source, translated)
    except ValueError:
        return False
    return True


def stored_translation(string: SourceString, locale_id: int) -> str | None:
    return (
        StringTranslation.objects.filter(
            translation_of_id=string.string_id, context_id=string.context_id, locale_id=locale_id
        )
        .values_list("data", flat=True)
        .first()
    )


def upsert_string_translations(
    values: dict[SourceString, str], locale_id: int, *, tool: str, user: Any
) -> StringChanges:
    """Store machine translations; returns what changed (created keys, previous rows).

    Strings without a stored source string (site settings rows) are not stored.
    """
    values = {s: data for s, data in values.items() if s.string_id is not None}
    if not values:
        return StringChanges()
    existing = {
        (st.translation_of_id, st.context_id): st
        for st in StringTranslation.objects.filter(
            locale_id=locale_id,
            translation_of_id__in={s.string_id for s in values},
            context_id__in={s.context_id for s in values},
        )
    }
    now = timezone.now()
    common = {
        "translation_type": StringTranslation.TRANSLATION_TYPE_MACHINE,
        "tool_name": tool,
        "last_translated_by": user,
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
    return StringChanges(
        created=[(st.translation_of_id, st.context_id) for st in to_create], updated=previous
    )


def string_translation_state(row: StringTranslation) -> dict[str, Any]:
    state = {name: getattr(row, name) for name in REVERTIBLE_STRING_FIELDS}
    state["updated_at"] = row.updated_at.isoformat()
    return {"id": row.pk, **state}


def restore_string_translations(changes: StringChanges, locale_id: int) -> None:
    """Undo ``changes``: delete the translations created, put back the ones changed."""
    for string_id, context_id in changes.created:
        StringTranslation.objects.filter(
            translation_of_id=string_id, context_id=context_id, locale_id=locale_id
        ).delete()
    for previous in changes.updated:
        fields = {k: v for k, v in previous.items() if k != "id"}
        StringTranslation.objects.filter(pk=previous["id"]).update(**fields)


def outdated_strings_of_target(locale_id: int, current_tool: str) -> Exists:
    """For a target object row (``translation_key``, in locale ``locale_id``): whether one of
    its source's strings has a machine translation written under an outdated output signature."""
    return Exists(
        StringTranslation.objects.filter(
            outdated_tool_names(current_tool),
            locale_id=locale_id,
            translation_of__segments__source__object_id=OuterRef("translation_key"),
            translation_of__segments__context_id=F("context_id"),
        )
    )
