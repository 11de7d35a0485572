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

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Exists, OuterRef, Q
from wagtail.models import Page, RevisionMixin, TranslatableMixin

from ..glossary.staleness import pair_changes
from ..localize.rule_changes import outdating_changes
from ..models import Mode, Run, Unit


def units_by_need(run: Run) -> tuple[models.QuerySet, models.QuerySet]:
    """(units that need work, units that may) of the run; disjoint querysets."""
    units = Unit.objects.filter(run_id=run.pk)
    if run.mode != Mode.CHANGED:
        return units, units.none()
    needs, maybe = outdated_by_rule_changes(run, units), Q(pk__in=[])
    for content_type_id in units.values_list("content_type_id", flat=True).distinct():
        model = ContentType.objects.get_for_id(content_type_id).model_class()
        of_type = units.filter(content_type_id=content_type_id)
        if model is None or not issubclass(model, TranslatableMixin):
            maybe |= Q(pk__in=of_type.values("pk"))  # site settings: rows without keys
            continue
        of_type = of_type.annotate(translated=Exists(translations_of_unit(model)))
        needs |= Q(pk__in=of_type.filter(translated=False).values("pk"))
        edited_at = edited_at_field(model)
        if edited_at is None:
            maybe |= Q(pk__in=of_type.filter(translated=True).values("pk"))
        else:
            needs |= Q(pk__in=edited_since_translated(of_type, model, run, edited_at))
    return units.filter(needs), units.filter(maybe)


def outdated_by_rule_changes(run: Run, units: models.QuerySet) -> Q:
    """Units whose translation a glossary or house style change outdated."""
    outdated = Q(pk__in=[])
    locale_ids = units.values_list("target_locale_id", flat=True).distinct()
    for locale_id in set(locale_ids):
        changes = pair_changes(run.source_locale_id, locale_id)
        for _change, of_unit in outdating_changes(
            run.source_locale_id, locale_id, changes, key="object_key"
        ):
            outdated |= Q(pk__in=units.filter(of_unit, target_locale_id=locale_id).values("pk"))
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
        .values("pk")
    )
