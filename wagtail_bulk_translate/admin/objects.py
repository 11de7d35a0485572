"""Source and target objects of units, loaded in bulk for a page of a table.

One query per content type on the page (not per row), so a page of 25 failures costs the same
whatever the size of the run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import QuerySet
from wagtail.admin.admin_url_finder import AdminURLFinder
from wagtail.models import Page, TranslatableMixin
from wagtail.query import PageQuerySet

from ..models import Unit


@dataclass
class UnitObjects:
    source: models.Model | None
    target: models.Model | None


def objects_of_units(units: Iterable[Unit]) -> dict[int, UnitObjects]:
    """{unit id: its source object and its target (if it exists)}."""
    units = list(units)
    by_type: dict[int, list[Unit]] = defaultdict(list)
    for unit in units:
        by_type[unit.content_type_id].append(unit)
    result: dict[int, UnitObjects] = {}
    for content_type_id, group in by_type.items():
        model = ContentType.objects.get_for_id(content_type_id).model_class()
        if model is None:
            result.update({unit.pk: UnitObjects(None, None) for unit in group})
            continue
        sources = in_bulk(model, [unit.object_id for unit in group])
        targets = targets_of(model, group)
        for unit in group:
            result[unit.pk] = UnitObjects(
                sources.get(unit.object_id), targets.get((unit.object_key, unit.target_locale_id))
            )
    return result


def in_bulk(model: type[models.Model], pks: list[str]) -> dict[str, models.Model]:
    rows: QuerySet[Any] = model._default_manager.filter(pk__in=pks)
    if issubclass(model, Page):
        rows = cast(PageQuerySet, rows).specific()
    return {str(row.pk): row for row in rows}


def targets_of(model: type[models.Model], units: list[Unit]) -> dict[tuple, models.Model]:
    """Targets by (object key, locale id): the written one, or an existing translation."""
    if not issubclass(model, TranslatableMixin):
        written = in_bulk(model, [u.target_object_id for u in units if u.target_object_id])
        return {
            (u.object_key, u.target_locale_id): written[u.target_object_id]
            for u in units
            if u.target_object_id in written
        }
    rows: QuerySet[Any] = model._default_manager.filter(
        translation_key__in={u.object_key for u in units},
        locale_id__in={u.target_locale_id for u in units},
    )
    if issubclass(model, Page):
        rows = cast(PageQuerySet, rows).specific()
    return {(row.translation_key, row.locale_id): row for row in rows}


def edit_url(instance: models.Model | None, user: Any) -> str | None:
    """The admin edit URL of an object the user may edit (wagtail-localize's editor for a
    synced translation: it replaces the page and snippet edit views)."""
    if instance is None:
        return None
    return AdminURLFinder(user).get_edit_url(instance)


def title(instance: models.Model | None) -> str:
    if instance is None:
        return ""
    if isinstance(instance, Page):
        return instance.get_admin_display_title()
    return str(instance)
