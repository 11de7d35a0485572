"""Preflight: what a run would do and cost, before it starts.

Objects and units per model are counted exactly (streaming the scope like the coordinator).
Strings and billable characters come from extracting the objects: exactly when the scope has
at most ``sample_size`` objects, otherwise from an evenly spread sample, scaled up and labelled
as an estimate. Characters are counted like DeepL bills them (text only, markup free), after
translation memory: text already translated into a locale anywhere on the site costs nothing.

A translator that pays by the token (``estimate_spend()`` returns a ``Spend``) is asked for its
own estimate of the same texts, with their context (title, field labels) as a run would send
them; its tokens and cost replace the per-character price (see :mod:`.spend_estimate`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.contrib.contenttypes.models import ContentType
from wagtail.models import Locale

from ..budgets.report import BudgetLeft, budgets_left, estimate_warnings
from ..conf import get_settings
from ..engine.context import text_context
from ..engine.needs_work import objects_needing_work
from ..engine.plan import copied_value
from ..engine.text_kinds import plain_text
from ..glossary.staleness import pair_changes
from ..localize.segments import extract, unstored_strings
from ..localize.strings import translation_memory
from ..models import ContentSource, Mode, RunOrigin
from ..objects import find_by_content_type
from ..scope.definition import Scope, model_label, validate_scope
from ..scope.enumeration import ScopedObject, iter_scope
from ..scope.readiness import Untranslatable, count_unpublished, untranslatable_in_scope
from ..scope.refusal_counts import count_refusals
from ..translators.base import Spend, TextContext, Usage
from .preflight_profiles import (
    ProfileEstimate,
    describe_translators,
    profile_estimates,
    route_targets,
    total_spend,
)
from .spend import money, spend_dict
from .start import refuse_incomplete_configuration, resolve_locale, resolve_targets

DEFAULT_SAMPLE_SIZE = 200


@dataclass
class Preflight:
    objects_by_model: dict[str, int]
    units_by_model: dict[str, int]
    units_total: int
    strings_to_translate: dict[str, int]  # per target locale
    characters_to_bill: dict[str, int]  # per target locale
    exact: bool
    sampled_objects: int
    price_per_million: Decimal
    currency: str
    unsupported_locales: list[str] = field(default_factory=list)  # refused, not counted
    content_source: str = ContentSource.LIVE
    unpublished_changes: int = 0
    untranslatable: list[Untranslatable] = field(default_factory=list)
    usage: Usage | None = None
    warnings: list[str] = field(default_factory=list)
    # Tokens and money, from the translator's estimate_spend() (None: priced per character).
    spend: Spend | None = None
    translator: str = ""  # its class name, as the run's summary names it
    translator_name: str = ""  # the translator's display name ("" when it cannot be loaded)
    writes_fake_text: bool = False  # the pseudo translator: visibly fake text, for trials
    # "changed" mode: units with work to do (missing, edited since, or outdated by a glossary
    # or house style change; see engine.needs_work); the others are skipped at no cost.
    units_needing_work: int | None = None
    # What is left of each cap a run of this origin would be held by (see budgets.report).
    budgets: list[BudgetLeft] = field(default_factory=list)
    # Units the editor's Wagtail permissions refuse (see scope.permissions): not at all, or
    # only publishing them (a run that publishes skips them; drafts are written).
    units_not_permitted: int = 0
    units_not_publishable: int = 0
    # Per translator profile: its locales, characters and cost (see preflight_profiles).
    profiles: list[ProfileEstimate] = field(default_factory=list)
    # {target locale code: the label of the profile that would translate it}.
    locale_profiles: dict[str, str] = field(default_factory=dict)

    @property
    def total_characters(self) -> int:
        return sum(self.characters_to_bill.values())

    @property
    def estimated_cost(self) -> Decimal:
        if len(self.profiles) > 1:
            return sum((profile.cost for profile in self.profiles), Decimal(0))
        if self.spend is not None:
            return money(self.spend.cost)
        cost = self.price_per_million * self.total_characters / Decimal(1_000_000)
        return cost.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)

    def as_dict(self) -> dict[str, Any]:
        return {
            "objects_by_model": self.objects_by_model,
            "units_by_model": self.units_by_model,
            "units_total": self.units_total,
            "units_needing_work": self.units_needing_work,
            "strings_to_translate": self.strings_to_translate,
            "characters_to_bill": self.characters_to_bill,
            "total_characters": self.total_characters,
            "exact": self.exact,
            "sampled_objects": self.sampled_objects,
            "estimated_cost": str(self.estimated_cost),
            "currency": self.currency,
            "price_per_million": str(self.price_per_million),
            "unsupported_locales": self.unsupported_locales,
            "content_source": self.content_source,
            "unpublished_changes": self.unpublished_changes,
            "untranslatable": [item.as_dict() for item in self.untranslatable],
            "usage": self.usage.as_dict() if self.usage else None,
            "warnings": self.warnings,
            "estimated_spend": spend_dict(self.spend),
            "budgets": [budget.as_dict() for budget in self.budgets],
            "units_not_permitted": self.units_not_permitted,
            "units_not_publishable": self.units_not_publishable,
            "profiles": [profile.as_dict() for profile in self.profiles],
            "locale_profiles": self.locale_profiles,
            **self.to_send(),
        }

    def to_send(self) -> dict[str, Any]:
        """The figures under the words the run's summary uses for what it sent."""
        return {
            "translator": self.translator,
            "texts_to_send": self.strings_to_translate,
            "characters_to_send": self.characters_to_bill,
        }


def preflight(
    scope: Scope | dict[str, Any],
    source_locale: Locale | str,
    target_locales: Iterable[Locale | str],
    *,
    mode: str = Mode.CHANGED,
    content_source: str = ContentSource.LIVE,
    sample_size: int = DEFAULT_SAMPLE_SIZE,
    origin: str = RunOrigin.ADMIN,
    user: Any = None,
    translator: str | Mapping[str, str] | None = None,
    allowed_translators: Iterable[str] | None = None,
) -> Preflight:
    """Count and price a run without starting it (raises the errors start_run would).

    Locales the translator refuses are listed, not counted; objects that would get no unit
    (a per-site setting with no site in a target locale) cost nothing. With ``user``, the
    units their Wagtail permissions would refuse are counted (None: the system, refused none).
    ``translator`` and ``allowed_translators`` choose translator profiles as for start_run.
    """
    scope = scope if isinstance(scope, Scope) else Scope.from_json(scope)
    source = resolve_locale(source_locale)
    targets = resolve_targets(target_locales, source)
    validate_scope(scope, source)
    refuse_incomplete_configuration()
    choice = {"*": translator} if isinstance(translator, str) else dict(translator or {})
    routing = route_targets(source, targets, choice, allowed_translators)
    refused = routing.refused
    targets = [t for t in targets if t not in refused]
    objects = list(iter_scope(scope, source))
    objects_by_model, units_by_model = count_by_model(objects, targets)
    with_units = with_units_of(objects, targets)
    needing_work = None
    if mode == Mode.CHANGED:
        # Strings and characters are estimated from the objects with work to do only.
        needing = objects_needing_work(
            source.pk,
            with_units,
            {obj.object_key: wanted_locales(obj, targets) for obj in with_units},
        )
        needing_work = sum(len(locales) for locales in needing.values())
        with_units = [obj for obj in with_units if needing.get(obj.object_key)]
    sample = spread_sample(with_units, sample_size)
    contexts = sample_texts(sample)
    texts = set(contexts)
    scale = len(with_units) / len(sample) if sample else 0
    strings, characters, billable_texts = {}, {}, {}
    tools = routing.tools(source, targets)
    for locale in targets:
        billable = texts
        if mode == Mode.CHANGED:
            billable = untranslated(texts, source, locale, tools.get(locale.pk, ""))
        billable_texts[locale] = billable
        strings[locale.language_code] = round(len(billable) * scale)
        characters[locale.language_code] = round(sum(map(billed_length, billable)) * scale)
    conf = get_settings()
    result = Preflight(
        objects_by_model=objects_by_model,
        units_by_model=units_by_model,
        units_total=sum(units_by_model.values()),
        strings_to_translate=strings,
        characters_to_bill=characters,
        exact=len(sample) == len(with_units),
        sampled_objects=len(sample),
        price_per_million=Decimal(str(conf.PRICE_PER_MILLION_CHARACTERS)),
        currency=conf.CURRENCY,
        unsupported_locales=[locale.language_code for locale in refused],
        content_source=content_source,
        unpublished_changes=count_unpublished(
            (obj.content_type_id, obj.object_id) for obj in with_units
        ),
        untranslatable=untranslatable_in_scope(scope, source),
        units_needing_work=needing_work,
    )
    describe_translators(result, routing, source, targets)
    result.profiles = profile_estimates(
        routing, source, billable_texts, characters, contexts, scale
    )
    result.spend = total_spend(result.profiles)
    if not result.exact:
        result.warnings.append(
            f"Strings and characters are estimated from {result.sampled_objects} objects."
        )
    check_budgets(result, origin)
    check_permissions(result, user, with_units_of(objects, targets), targets, mode)
    return result


def with_units_of(objects: list[ScopedObject], targets: list[Locale]) -> list[ScopedObject]:
    return [obj for obj in objects if wanted_locales(obj, targets)]


def check_permissions(
    result: Preflight, user: Any, objects: list[ScopedObject], targets: list[Locale], mode: str
) -> None:
    """Count the units the editor may not translate, or not publish, with a warning each."""
    counts = count_refusals(user, objects, targets, overwrite=mode == Mode.OVERWRITE)
    result.units_not_permitted = counts.not_permitted
    result.units_not_publishable = counts.not_publishable
    if counts.not_permitted:
        result.warnings.append(
            f"{counts.not_permitted} of the {result.units_total} units are outside what your "
            "Wagtail permissions let you edit (or add): the run skips them and says why."
        )
    if counts.not_publishable:
        result.warnings.append(
            f"You may not publish {counts.not_publishable} of the {result.units_total} units: "
            "a run that publishes skips them; saved as drafts, they are translated."
        )


def check_budgets(result: Preflight, origin: str) -> None:
    """What is left of each budget, and a warning for each one the estimate exceeds."""
    result.budgets = budgets_left(origin)
    cost = money(result.spend.cost) if result.spend is not None else None
    result.warnings += estimate_warnings(result.budgets, result.total_characters, cost)


def empty_scope_reason(result: Preflight) -> str:
    """Why a run over this scope would have no unit at all ("" when it has some)."""
    if result.units_total:
        return ""
    if not result.objects_by_model:
        return (
            "Nothing to translate: the chosen pages, snippets and settings hold no object in "
            "the source locale."
        )
    if result.unsupported_locales and not result.strings_to_translate:
        return (
            "The translator cannot translate into any of the chosen locales ("
            + ", ".join(result.unsupported_locales)
            + "): choose others, or configure another translator."
        )
    return (
        "The objects in this scope get no unit in the chosen locales: per-site settings are "
        "translated only into the locales of their sites. Choose other locales."
    )


def canary_too_large(units_total: int, canary_size: int | None) -> str:
    """Why a canary of this size is refused for this many units ("" when it is not)."""
    if canary_size is None or canary_size <= units_total:
        return ""
    return (
        f"A canary of {canary_size} units is larger than the whole run ({units_total} units): a "
        f"canary is a sample of the run. Choose at most {units_total}, or start without a canary."
    )


def wanted_locales(obj: ScopedObject, targets: list[Locale]) -> set[int]:
    target_ids = {locale.pk for locale in targets}
    return target_ids if obj.target_locale_ids is None else target_ids & obj.target_locale_ids


def count_by_model(
    objects: list[ScopedObject], targets: list[Locale]
) -> tuple[dict[str, int], dict[str, int]]:
    objects_by_type: Counter[int] = Counter()
    units_by_type: Counter[int] = Counter()
    for obj in objects:
        objects_by_type[obj.content_type_id] += 1
        units_by_type[obj.content_type_id] += len(wanted_locales(obj, targets))
    labels = {
        ct.pk: model_label(ct.model_class() or ContentType)
        for ct in ContentType.objects.filter(pk__in=objects_by_type)
    }
    return (
        {labels[pk]: n for pk, n in sorted(objects_by_type.items())},
        {labels[pk]: n for pk, n in sorted(units_by_type.items())},
    )


def spread_sample(objects: list[ScopedObject], size: int) -> list[ScopedObject]:
    if len(objects) <= size:
        return objects
    step = len(objects) / size
    return [objects[int(i * step)] for i in range(size)]


def sample_texts(sample: list[ScopedObject]) -> dict[str, TextContext]:
    """Distinct texts the translator would be sent for these objects (any locale), with the
    context of the first object sending each: the engine's own plan, without the slug (never
    billed by the default policies)."""
    excluded = get_settings().EXCLUDE_FIELDS
    texts: dict[str, TextContext] = {}
    for obj in sample:
        instance = find_by_content_type(obj.content_type_id, obj.object_id)
        if instance is None:
            continue
        skip = excluded.get(model_label(type(instance)), [])
        strings = unstored_strings(extract(instance), instance)
        for position, string in enumerate(strings):
            if string.data in texts or string.path == "slug":
                continue
            if copied_value(string, excluded_fields=skip) is None:
                texts[string.data] = text_context(instance, string, position)
    return texts


def untranslated(texts: set[str], source: Locale, locale: Locale, tool: str = "") -> set[str]:
    """Texts with no valid translation into ``locale`` anywhere on the site (what the
    translator wrote under another output signature does not count: a run redoes it)."""
    known: set[str] = set()
    changes = pair_changes(source.pk, locale.pk)
    pending = list(texts)
    for start in range(0, len(pending), 500):
        chunk = pending[start : start + 500]
        known.update(translation_memory(source.pk, chunk, locale.pk, tool, changes))
    return texts - known


def billed_length(text: str) -> int:
    """Characters as DeepL bills them: the text, not the markup around it."""
    return len(plain_text(text))
