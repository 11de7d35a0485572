"""Translation coverage: per content type and target locale, what is translated, outdated, missing.

Set-based on purpose: a few grouped queries per model whatever the number of objects (the report
must stay fast on sites of tens of thousands of pages), never a loop over objects.

* **missing**: the source object has no translation in the locale (a page alias, an
  untranslated copy wagtail-localize keeps in sync, counts as missing);
* **outdated**: the source was edited after the last time a run translated it into the locale
  (or confirmed it unchanged). Edits are known from revisions: pages' latest revision time and
  the latest revision of ``RevisionMixin`` snippets. An edit that changed no translatable text
  still counts; a run in ``changed`` mode then skips it at no cost and it is no longer outdated.
  So does a target one of whose strings the configured translator wrote under another output
  signature (a language model's model, prompt or glossary changed since: see
  ``engine.signatures``); translators without a signature (DeepL) never make anything outdated.
  And so does a target with a machine translation made before a change of a glossary term
  occurring in its text, or of the locale's house style (``outdated_reasons`` names them);
  Models without revisions record no edit time: their ``outdated`` is ``None`` (unknown);
* **translated**: the rest of the existing translations, including those made outside runs;
  ``drafts`` of them are not live yet (a page or snippet with drafts, translated as a draft and
  never published): up to date, but not what visitors see.

Per-site settings (``BaseSiteSetting``) have no translation key linking their rows and are left
out of the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Count, Exists, OuterRef, Q
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale, Page, RevisionMixin

from .engine.signatures import configured_tool_names
from .glossary.staleness import RuleChange, changes_by_pair
from .localize.rule_changes import outdating_changes
from .localize.strings import outdated_strings_of_target
from .localize.tool_names import can_be_outdated
from .models import Unit
from .scope.definition import model_label
from .scope.whole_site import translatable_setting_labels, translatable_snippet_labels
from .translatable_settings import is_site_setting


class CoverageKind(models.TextChoices):
    PAGES = "pages", _("Pages")
    SNIPPETS = "snippets", _("Snippets")
    SETTINGS = "settings", _("Settings")


PAGES, SNIPPETS, SETTINGS = CoverageKind.PAGES, CoverageKind.SNIPPETS, CoverageKind.SETTINGS


@dataclass(frozen=True)
class CoverageRow:
    """Coverage of one content type in one target locale; the counts add up to ``total``."""

    kind: str  # a CoverageKind
    label: str  # "app_label.ModelName"
    name: str  # the model's verbose name, for people
    locale: str  # target locale code
    total: int  # source objects
    translated: int  # translated and not edited since (or edit times unknown)
    outdated: int | None  # None: the model records no edit times
    missing: int
    # Why translations are outdated besides edits: "glossary term “X” changed", "house style…".
    outdated_reasons: tuple[str, ...] = ()
    drafts: int = 0  # of ``translated``: drafts not published yet

    @property
    def translated_live(self) -> int:
        """Up to date and published."""
        return self.translated - self.drafts

    @property
    def percent_translated(self) -> int | None:
        """Up to date, in percent; None when unknown: translations exist but the model
        records no edit times, so some may be outdated (never claimed 100 %)."""
        if self.outdated is None and self.translated:
            return None
        return round(100 * self.translated / self.total) if self.total else 100

    @property
    def units_needing_work(self) -> int:
        """Missing and outdated translations (what a run in "changed" mode translates)."""
        return self.missing + (self.outdated or 0)

    @property
    def needs_work(self) -> bool:
        return bool(self.missing or self.outdated)


def coverage(
    source_locale: Locale, target_locales: list[Locale] | None = None
) -> list[CoverageRow]:
    """Coverage of every page type, translatable snippet and setting, per target locale.

    ``target_locales`` defaults to every locale but the source. Rows are ordered pages first,
    then snippets, then settings, by model and locale; types without source objects are left
    out.
    """
    if target_locales is None:
        target_locales = list(Locale.objects.exclude(pk=source_locale.pk).order_by("language_code"))
    targets = [locale for locale in target_locales if locale.pk != source_locale.pk]
    if not targets:
        return []
    outdating = Outdating(
        signed_tool_names(source_locale, targets), rule_changes_by_locale(source_locale, targets)
    )
    rows = page_rows(source_locale, targets, outdating)
    for kind, labels in ((SNIPPETS, translatable_snippet_labels()), (SETTINGS, setting_labels())):
        for label in labels:
            rows.extend(model_rows(kind, apps.get_model(label), source_locale, targets, outdating))
    return rows


@dataclass(frozen=True)
class Outdating:
    """What outdates translations besides edits, per target locale id: the tool name of
    today's signed machine translations, and the glossary/house style changes (with the query
    telling whether a target row is outdated by each)."""

    tools: dict[int, str]
    changes: dict[int, list[tuple[RuleChange, Exists]]]


def rule_changes_by_locale(
    source: Locale, targets: list[Locale]
) -> dict[int, list[tuple[RuleChange, Exists]]]:
    found = {}
    by_pair = changes_by_pair(source.pk, [locale.pk for locale in targets])
    for locale in targets:
        changes = outdating_changes(source.pk, locale.pk, by_pair[locale.pk])
        if changes:
            found[locale.pk] = changes
    return found


def signed_tool_names(source: Locale, targets: list[Locale]) -> dict[int, str]:
    """{locale id: the tool name today's machine translations are stored with}, for the
    locales into which the configured translator signs its output (none for DeepL)."""
    tools = configured_tool_names(source, targets)
    return {pk: tool for pk, tool in tools.items() if can_be_outdated(tool)}


def setting_labels() -> list[str]:
    return [
        label
        for label in translatable_setting_labels()
        if not is_site_setting(apps.get_model(label))
    ]


def page_rows(source: Locale, targets: list[Locale], outdating: Outdating) -> list[CoverageRow]:
    sources = Page.objects.filter(locale=source, depth__gt=1, alias_of__isnull=True)
    totals = dict(sources.values_list("content_type").annotate(n=Count("pk")).order_by())
    if not totals:
        return []
    found = translation_counts(
        Page.objects.filter(alias_of__isnull=True),
        sources,
        targets,
        group_by=("content_type", "locale"),
        edited_at="latest_revision_created_at",
        outdating=outdating,
    )
    content_types = [ContentType.objects.get_for_id(pk) for pk in totals]  # cached
    models_by_label = {model_label(model_of(ct)): ct for ct in content_types}
    rows = []
    for label in sorted(models_by_label):
        ct = models_by_label[label]
        for locale in targets:
            counts = found.get((ct.pk, locale.pk), Counts(0, 0))
            rows.append(make_row(PAGES, model_of(ct), locale, totals[ct.pk], counts))
    return rows


def model_of(content_type: ContentType) -> type[models.Model]:
    # Only content types of existing pages get here: their model is installed (pages of a
    # removed model could not be queried at all), so model_class() is never None.
    return cast("type[models.Model]", content_type.model_class())


def model_rows(
    kind: str,
    model: type[models.Model],
    source: Locale,
    targets: list[Locale],
    outdating: Outdating,
) -> list[CoverageRow]:
    sources = model._default_manager.filter(locale=source)
    total = sources.count()
    if not total:
        return []
    edited_at = "latest_revision__created_at" if issubclass(model, RevisionMixin) else None
    found = translation_counts(
        model._default_manager.all(),
        sources,
        targets,
        group_by=("locale",),
        edited_at=edited_at,
        outdating=outdating,
    )
    unknown = None if edited_at is None else 0
    rows = []
    for locale in targets:
        counts = found.get((locale.pk,), Counts(0, unknown))
        rows.append(make_row(kind, model, locale, total, counts))
    return rows


@dataclass(frozen=True)
class Counts:
    existing: int  # translations of the sources
    stale: int | None  # outdated ones among them (None: unknown)
    reasons: tuple[str, ...] = ()
    drafts: int = 0  # up to date ones that are not live


def translation_counts(
    base: models.QuerySet,
    sources: models.QuerySet,
    targets: list[Locale],
    *,
    group_by: tuple[str, ...],
    edited_at: str | None,
    outdating: Outdating | None = None,
) -> dict[tuple, Counts]:
    """{group: counts} in one grouped query.

    Outdated is None when ``edited_at`` is None (the model records no edit times).
    """
    outdating = outdating or Outdating({}, {})
    aggregates = {"n": Count("pk")}
    reasons: dict[str, str] = {}
    not_live = Q(live=False)
    if edited_at is not None:
        stale = outdated_condition(sources, edited_at, outdating)
        for locale_id, changes in outdating.changes.items():
            for change, outdated in changes:
                name = f"why_{len(reasons)}"
                reasons[name] = change.reason
                aggregates[name] = Count("pk", filter=Q(outdated, locale_id=locale_id))
        aggregates["stale"] = Count("pk", filter=stale)
        not_live &= ~stale
    if any(f.name == "live" for f in base.model._meta.fields):
        aggregates["drafts"] = Count("pk", filter=not_live)
    rows = (
        base.filter(locale__in=targets, translation_key__in=sources.values("translation_key"))
        .values(*group_by)
        .annotate(**aggregates)
        .order_by()
    )
    return {
        tuple(row[name] for name in group_by): Counts(
            row["n"],
            row["stale"] if edited_at is not None else None,
            tuple(dict.fromkeys(why for name, why in reasons.items() if row.get(name))),
            row.get("drafts", 0),
        )
        for row in rows
    }


def outdated_condition(
    sources: models.QuerySet, edited_at: str, outdating: Outdating | None = None
) -> Q:
    """Whether the outer target row is outdated: its source edited since its last translation,
    one of its strings written under another output signature, or a glossary term it contains
    (or its locale's house style) changed since. The editor's Translations panel filters with
    it too, so the panel and this report always agree."""
    outdating = outdating or Outdating({}, {})
    stale = Q(Exists(edited_since_translated(sources, edited_at)))
    for locale_id, tool in outdating.tools.items():
        stale |= Q(outdated_strings_of_target(locale_id, tool), locale_id=locale_id)
    for locale_id, changes in outdating.changes.items():
        for _change, outdated in changes:
            stale |= Q(outdated, locale_id=locale_id)
    return stale


def edited_since_translated(sources: models.QuerySet, edited_at: str) -> models.QuerySet:
    """The source of the outer target row, if edited after its last translation into the
    target's locale (a run's success, or a run's check that it was unchanged; not reverted)."""
    last_translated = Unit.objects.last_translated_at(
        OuterRef("translation_key"), OuterRef(OuterRef("locale_id"))
    )
    return sources.filter(
        translation_key=OuterRef("translation_key"),
        **{f"{edited_at}__gt": last_translated},
    )


def make_row(
    kind: str,
    model: type[models.Model],
    locale: Locale,
    total: int,
    counts: Counts,
) -> CoverageRow:
    return CoverageRow(
        kind=kind,
        label=model_label(model),
        name=str(capfirst(model._meta.verbose_name)),
        locale=locale.language_code,
        total=total,
        translated=counts.existing - (counts.stale or 0),
        outdated=counts.stale,
        missing=total - counts.existing,
        outdated_reasons=counts.reasons,
        drafts=counts.drafts,
    )
