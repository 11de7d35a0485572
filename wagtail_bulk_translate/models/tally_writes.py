"""Keeping the run tally exact: every write to units goes through here.

``UnitQuerySet.update``/``bulk_create``/``delete`` and ``Unit.save``/``delete`` call these, so
no caller can change a unit's status (or error code, or totals) without moving it between
tally rows, in the same transaction as the change. A bulk change locks the rows it will touch
(ordered by pk), reads their groups, updates them, and adds the difference to the tally with
``F()`` increments: concurrent workers never lose an increment, and tally rows are always
updated in the same (sorted) order, so two transitions cannot deadlock on them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from django.apps import apps
from django.db import models, transaction
from django.db.models import Count, F, Sum

from .tally import KEY_FIELDS, SUM_FIELDS, RunTally

Key = tuple[Any, ...]  # (run_id, target_locale_id, content_type_id, status, error_code)
Groups = dict[Key, list[int]]  # key -> [units, strings_translated, billed_characters]
ROW_FIELDS = ("pk", *KEY_FIELDS, *SUM_FIELDS)
# The tallied fields an update may set to a literal and still have its outcome predicted
# without reading the rows again.
PREDICTABLE = {"status": 4, "error_code": 5, "strings_translated": 6, "billed_characters": 7}
TALLIED = {*PREDICTABLE, "run", "run_id", "target_locale", "target_locale_id"}
TALLIED |= {"content_type", "content_type_id"}
CHUNK = 5000  # pks per UPDATE: under every backend's limit on query parameters


def touches_tally(fields: Iterable[str]) -> bool:
    return not TALLIED.isdisjoint(fields)


def update_units(units: models.QuerySet, changes: dict[str, Any]) -> int:
    """``units.update(**changes)``, the tally moved along; returns the rows updated."""
    if not touches_tally(changes):
        return models.QuerySet.update(units, **changes)
    with transaction.atomic(using=units.db):
        rows = locked_rows(units)
        delta: Groups = {}
        updated = 0
        for chunk in chunks(rows):
            pks = [row[0] for row in chunk]
            n = models.QuerySet.update(units.filter(pk__in=pks), **changes)
            updated += n
            after = predicted(chunk, changes) if n == len(chunk) else None
            if after is None:
                after = list(units.model._base_manager.filter(pk__in=pks).values_list(*ROW_FIELDS))
            add(delta, group(after))
            add(delta, group(chunk), sign=-1)
        apply(delta)
    return updated


def create_units(
    units: models.QuerySet, objs: Sequence[models.Model], create: Callable[..., Any], **kw: Any
) -> Any:
    """``bulk_create`` of units, each inserted one counted (``ignore_conflicts`` drops some)."""
    if kw.get("update_conflicts"):
        raise NotImplementedError("bulk_create(update_conflicts=True) of units is not tallied")
    objs = list(objs)
    with transaction.atomic(using=units.db):
        existed = identities(units, objs) if kw.get("ignore_conflicts") else set()
        result = create(objs, **kw)
        if kw.get("ignore_conflicts"):
            # Of several objects with one identity, the first was inserted, the others not.
            present = identities(units, objs) - existed
            firsts = {identity(obj): obj for obj in reversed(objs)}
            objs = [obj for key, obj in firsts.items() if key in present]
        apply(group(row_of(obj) for obj in objs))
    return result


def delete_units(units: models.QuerySet, delete: Callable[[], Any]) -> Any:
    with transaction.atomic(using=units.db):
        rows = locked_rows(units)
        result = delete()
        apply(group(rows), sign=-1)
    return result


def save_unit(unit: models.Model, save: Callable[[], None], update_fields: Any) -> None:
    """``Model.save`` of a unit: the row read before and after (saves of units are rare)."""
    if update_fields is not None and not touches_tally(update_fields):
        save()
        return
    rows = unit._meta.model._base_manager.filter(pk=unit.pk)
    with transaction.atomic():
        before = locked_rows(rows) if unit.pk is not None else []
        save()
        after = list(rows.model._base_manager.filter(pk=unit.pk).values_list(*ROW_FIELDS))
        delta = group(after)
        add(delta, group(before), sign=-1)
        apply(delta)


def locked_rows(units: models.QuerySet) -> list[tuple[Any, ...]]:
    # Locked in pk order: the rows cannot change until the tally moves with them.
    locked = units.select_for_update(of=("self",)).order_by("pk")
    return list(locked.values_list(*ROW_FIELDS))


def chunks(rows: list[tuple[Any, ...]]) -> Iterator[list[tuple[Any, ...]]]:
    for start in range(0, len(rows), CHUNK):
        yield rows[start : start + CHUNK]


def predicted(rows: list[tuple[Any, ...]], changes: dict[str, Any]) -> list[tuple] | None:
    """The rows as the update left them, when its tallied changes are plain values."""
    tallied = {name: value for name, value in changes.items() if name in TALLIED}
    if any(name not in PREDICTABLE or is_expression(v) for name, v in tallied.items()):
        return None
    result = []
    for row in rows:
        new = list(row)
        for name, value in tallied.items():
            new[PREDICTABLE[name]] = value
        result.append(tuple(new))
    return result


def is_expression(value: Any) -> bool:
    return hasattr(value, "resolve_expression")


def identity(obj: Any) -> tuple[Any, Any, Any]:
    return (obj.run_id, obj.object_key, obj.target_locale_id)


def identities(units: models.QuerySet, objs: list[Any]) -> set[tuple[Any, Any, Any]]:
    """The (run, object, locale) of ``objs`` that have a row (the unique identity of a unit)."""
    rows = units.model._base_manager.filter(
        run_id__in={obj.run_id for obj in objs}, object_key__in={obj.object_key for obj in objs}
    ).values_list("run_id", "object_key", "target_locale_id")
    return set(rows)


def row_of(obj: Any) -> tuple[Any, ...]:
    return tuple(getattr(obj, name) for name in ROW_FIELDS)


def group(rows: Iterable[Sequence[Any]]) -> Groups:
    groups: Groups = {}
    for row in rows:
        sums = groups.setdefault(tuple(row[1:6]), [0, 0, 0])
        sums[0] += 1
        sums[1] += row[6] or 0
        sums[2] += row[7] or 0
    return groups


def add(total: Groups, groups: Groups, sign: int = 1) -> None:
    for key, sums in groups.items():
        into = total.setdefault(key, [0, 0, 0])
        for i, value in enumerate(sums):
            into[i] += sign * value


def apply(delta: Groups, sign: int = 1) -> None:
    """Add ``delta`` to the tally rows, creating missing ones, in key order (no deadlocks)."""
    for key in sorted(delta, key=lambda k: tuple(str(part) for part in k)):
        units, strings, billed = (sign * value for value in delta[key])
        if not (units or strings or billed):
            continue
        row = RunTally.objects.filter(**dict(zip(KEY_FIELDS, key, strict=True)))
        changes = {
            "units": F("units") + units,
            "strings_translated": F("strings_translated") + strings,
            "billed_characters": F("billed_characters") + billed,
        }
        if not row.update(**changes):
            RunTally.objects.bulk_create(
                [RunTally(**dict(zip(KEY_FIELDS, key, strict=True)))], ignore_conflicts=True
            )
            row.update(**changes)


# --- the oracle: counting the units themselves -------------------------------------------------


def unit_model() -> Any:
    # By name: models/units.py imports this module (its querysets write through it).
    return apps.get_model("wagtail_bulk_translate", "Unit")


def counted_groups(run_id: int) -> Groups:
    """The tally as the run's units say it should be (one GROUP BY over them)."""
    rows = (
        unit_model()
        .objects.filter(run_id=run_id)
        .values_list(*KEY_FIELDS)
        .annotate(n=Count("pk"), s=Sum("strings_translated"), b=Sum("billed_characters"))
        .order_by()
    )
    return {tuple(row[:5]): [row[5], row[6] or 0, row[7] or 0] for row in rows}


def stored_groups(run_id: int) -> Groups:
    rows = RunTally.objects.filter(run_id=run_id).exclude(
        units=0, strings_translated=0, billed_characters=0
    )
    return {
        tuple(getattr(row, name) for name in KEY_FIELDS): [
            row.units,
            row.strings_translated,
            row.billed_characters,
        ]
        for row in rows
    }


def recount_tally(run_id: int) -> Groups:
    """Rebuild a run's tally from its units (repair); returns the groups it stored.

    The run's units are locked first, so no transition moves one while the tally is rebuilt.
    """
    with transaction.atomic():
        units = unit_model().objects.filter(run_id=run_id).select_for_update(of=("self",))
        list(units.order_by("pk").values_list("pk", flat=True))
        groups = counted_groups(run_id)
        RunTally.objects.filter(run_id=run_id).delete()
        RunTally.objects.bulk_create(
            RunTally(**dict(zip(KEY_FIELDS, key, strict=True)), units=n, strings_translated=s,
                     billed_characters=b)
            for key, (n, s, b) in groups.items()
        )  # fmt: skip
    return groups


def sums_of(groups: Groups) -> dict[str, int]:
    return {
        "strings_translated": sum(strings for _n, strings, _b in groups.values()),
        "billed_characters": sum(billed for _n, _s, billed in groups.values()),
    }
