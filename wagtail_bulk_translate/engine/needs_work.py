"""Which units of a run have work to do, known without loading a single source object.

A canary samples among them (sampling.py). In ``changed`` mode, per (object, locale), from what
the database already holds (the coverage report's notion of missing and outdated):

* **needs work**: the object has no translation in that locale yet, or its source was edited
  (its latest revision) after the last time a run translated it into that locale or found it
  unchanged, or a glossary term occurring in it (or the locale's house style) changed after
  its machine translation;
* **maybe**: a translation exists and the model records no edit times (snippets without
  revisions, settings): only extracting the source tells;
* **nothing to do**: the rest, translated and not edited since.

Comparing change hashes would need every source extracted, which is the work itself. The
worker's change hash still decides in the end: an edit that changed no translatable text is
"needs work" here and skipped at no cost there, and a page whose text is unchanged but whose
chosen snippets were translated since is "nothing to do" here (a canary does not pick it; the
promoted run does it). In ``refresh`` and ``overwrite`` modes every unit has work to do.
"""

from __future__ import annotations

import uuid

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Exists, OuterRef, Q
from wagtail.models import Page, RevisionMixin, TranslatableMixin

from ..errors import ErrorCode
from ..glossary.staleness import pair_changes
from ..localize.rule_changes import outdating_changes
from ..models import Mode, Run, Unit, UnitStatus
from ..scope.enumeration import ScopedObject

# Object keys per query of objects_needing_work (well under every database's parameter limit).
CHUNK = 500


def unit_ids_by_need(run: Run) -> tuple[set[int], set[int]]:
    """(ids of the units that need work, ids of those that may) of the run; disjoint.

    Each condition is its own flat query and the ids are united here: OR-ing one subquery per
    content type and per glossary change into one query nests as deep as there are conditions,
    past SQLite's expression depth on a big run or glossary.
    """
    units = Unit.objects.filter(run_id=run.pk).order_by()
    if run.mode != Mode.CHANGED:
        return set(units.values_list("pk", flat=True)), set()
    needs, maybe = outdated_by_rule_changes(run, units), set()
    for content_type_id in set(units.values_list("content_type_id", flat=True).distinct()):
        model = ContentType.objects.get_for_id(content_type_id).model_class()
        of_type = units.filter(content_type_id=content_type_id)
        if model is None or not issubclass(model, TranslatableMixin):
            maybe |= ids_of(of_type)  # site settings: rows without keys
            continue
        of_type = of_type.annotate(translated=Exists(translations_of_unit(model)))
        needs |= ids_of(of_type.filter(translated=False))
        edited_at = edited_at_field(model)
        if edited_at is None:
            maybe |= ids_of(of_type.filter(translated=True))
        else:
            needs |= ids_of(edited_since_translated(of_type, model, run, edited_at))
    return needs, maybe - needs


def ids_of(units: models.QuerySet) -> set[int]:
    return set(units.values_list("pk", flat=True))


def outdated_by_rule_changes(run: Run, units: models.QuerySet) -> set[int]:
    """Ids of the units whose translation a glossary or house style change outdated."""
    outdated: set[int] = set()
    for locale_id in set(units.values_list("target_locale_id", flat=True).distinct()):
        changes = pair_changes(run.source_locale_id, locale_id)
        for _change, of_unit in outdating_changes(
            run.source_locale_id, locale_id, changes, key="object_key"
        ):
            outdated |= ids_of(units.filter(of_unit, target_locale_id=locale_id))
    return outdated


def translations_of_unit(model: type[models.Model]) -> models.QuerySet:
    rows = Page.objects.filter(alias_of__isnull=True) if issubclass(model, Page) else None
    if rows is None:
        rows = model._default_manager.all()
    return rows.filter(
        translation_key=OuterRef("object_key"), locale_id=OuterRef("target_locale_id")
    )


def edited_at_field(model: type[models.Model]) -> str | None:
    if issubclass(model, Page):
        return "latest_revision_created_at"
    if issubclass(model, RevisionMixin):
        return "latest_revision__created_at"
    return None


def edited_since_translated(
    units: models.QuerySet, model: type[models.Model], run: Run, edited_at: str
) -> models.QuerySet:
    rows = Page.objects if issubclass(model, Page) else model._default_manager
    source_edited = rows.filter(
        translation_key=OuterRef("object_key"), locale_id=run.source_locale_id
    ).values(edited_at)[:1]
    return (
        units.filter(translated=True)
        .annotate(
            edited=models.Subquery(source_edited),
            last=Unit.objects.exclude(run_id=run.pk).last_translated_at(
                OuterRef("object_key"), OuterRef("target_locale_id")
            ),
        )
        .filter(edited__gt=models.F("last"))
    )


def objects_needing_work(
    source_locale_id: int, objects: list[ScopedObject], locale_ids: dict[uuid.UUID, set[int]]
) -> dict[uuid.UUID, set[int]]:
    """Before a run exists (the preflight of a "changed" run): {object key: the target locales
    in which it needs work, or may}, by the rules above, from the scoped objects and the
    locales each would get a unit in (``locale_ids``)."""
    needing: dict[uuid.UUID, set[int]] = {}
    by_type: dict[int, list[uuid.UUID]] = {}
    for obj in objects:
        by_type.setdefault(obj.content_type_id, []).append(obj.object_key)
    for content_type_id, keys in by_type.items():
        model = ContentType.objects.get_for_id(content_type_id).model_class()
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start : start + CHUNK]
            if model is None or not issubclass(model, TranslatableMixin):
                needing.update({key: set(locale_ids[key]) for key in chunk})  # site settings
                continue
            for key, locale_id in pairs_of_chunk(source_locale_id, model, chunk, locale_ids):
                needing.setdefault(key, set()).add(locale_id)
    return needing


def pairs_of_chunk(
    source_locale_id: int,
    model: type[models.Model],
    keys: list[uuid.UUID],
    locale_ids: dict[uuid.UUID, set[int]],
) -> set[tuple[uuid.UUID, int]]:
    targets = {pk for key in keys for pk in locale_ids[key]}
    rows = Page.objects.filter(alias_of__isnull=True) if issubclass(model, Page) else None
    rows = (rows if rows is not None else model._default_manager.all()).filter(
        translation_key__in=keys
    )
    translated = set(rows.filter(locale_id__in=targets).values_list("translation_key", "locale_id"))
    wanted = {(key, pk) for key in keys for pk in locale_ids[key]}
    needing = wanted - translated
    edited_at = edited_at_field(model)
    if edited_at is None:
        return wanted  # translated or not, only extracting the source tells
    edited = dict(rows.filter(locale_id=source_locale_id).values_list("translation_key", edited_at))
    done = Q(status=UnitStatus.SUCCEEDED) | Q(
        status=UnitStatus.SKIPPED, error_code=ErrorCode.UNCHANGED
    )
    last = (
        Unit.objects.filter(done, object_key__in=keys, target_locale_id__in=targets)
        .filter(reverted_at__isnull=True)
        .values_list("object_key", "target_locale_id")
        .annotate(last=models.Max("finished_at"))
    )
    last_at = {(key, pk): at for key, pk, at in last}
    for pair in translated & wanted:
        at, when = edited.get(pair[0]), last_at.get(pair)
        if at is not None and when is not None and at > when:
            needing.add(pair)
    for locale_id in targets:
        changes = pair_changes(source_locale_id, locale_id)
        for _change, of_row in outdating_changes(source_locale_id, locale_id, changes):
            hit = rows.filter(of_row, locale_id=locale_id).values_list("translation_key", flat=True)
            needing |= {(key, locale_id) for key in hit} & wanted
    return needing
