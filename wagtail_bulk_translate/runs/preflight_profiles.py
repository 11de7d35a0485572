"""The preflight per translator profile: which profile would translate each locale, and what
its share costs (characters at the per-character price for DeepL, the translator's own tokens
and money for a language model)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from wagtail.models import Locale

from ..conf import get_settings
from ..engine.signatures import locale_output
from ..errors import RunConfigurationError
from ..glossary.outdated import outdated_warnings
from ..translators.base import BulkTranslator, Spend, TextContext
from ..translators.pins import TranslatorPin, check_choice, choice_for, choose_pins
from ..translators.profiles import configured_profiles
from ..translators.pseudo import PseudoTranslator
from .spend import money, spend_dict
from .spend_estimate import estimate_spend
from .summary import translator_name


@dataclass
class ProfileEstimate:
    """One profile's share of a run: its locales, characters and cost."""

    profile: str
    label: str
    translator: str  # its class name
    locales: list[str] = field(default_factory=list)
    characters: int = 0
    spend: Spend | None = None

    @property
    def cost(self) -> Decimal:
        if self.spend is not None:
            return money(self.spend.cost)
        price = Decimal(str(get_settings().PRICE_PER_MILLION_CHARACTERS))
        cost = price * self.characters / Decimal(1_000_000)
        return cost.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)

    def as_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "label": self.label,
            "translator": self.translator,
            "locales": self.locales,
            "characters": self.characters,
            "estimated_cost": str(self.cost),
            "estimated_spend": spend_dict(self.spend),
        }


@dataclass
class Routing:
    """Where each target locale goes: its pin and built translator, or why none serves it."""

    pins: dict[int, TranslatorPin] = field(default_factory=dict)
    translators: dict[str, BulkTranslator] = field(default_factory=dict)
    refused: list[Locale] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def translator_of(self, locale: Locale) -> BulkTranslator:
        return self.translators[self.pins[locale.pk].profile]

    def tools(self, source: Locale, targets: Iterable[Locale]) -> dict[int, str]:
        return {
            t.pk: locale_output(self.pins[t.pk], self.translator_of(t), source, t).tool
            for t in targets
        }


def route_targets(
    source: Locale,
    targets: list[Locale],
    choice: Mapping[str, str],
    allowed: Iterable[str] | None,
) -> Routing:
    """Each target's profile as ``start_run`` would pin it. A locale no profile serves is
    refused (listed, not counted); a choice the run would refuse raises, as it would."""
    routing = Routing()
    check_choice(choice, targets, configured_profiles() if allowed is None else allowed)
    for target in targets:
        try:
            pin = choose_pins(source, [target], choice, checked=True)[target.pk]
        except RunConfigurationError as err:
            if choice_for(target, choice):
                raise
            routing.refused.append(target)
            if "cannot be loaded" in str(err):
                routing.errors.append(str(err))
            continue
        routing.pins[target.pk] = pin
        if pin.profile not in routing.translators:
            routing.translators[pin.profile] = pin.build()
    return routing


def profile_estimates(
    routing: Routing,
    source: Locale,
    billable: dict[Locale, set[str]],
    characters: dict[str, int],
    contexts: dict[str, TextContext],
    scale: float,
) -> list[ProfileEstimate]:
    """Per profile, in the order its first locale comes: its locales, characters and spend."""
    profiles = configured_profiles()
    found: dict[str, ProfileEstimate] = {}
    for locale in billable:
        pin = routing.pins[locale.pk]
        profile = profiles.get(pin.profile)
        estimate = found.setdefault(
            pin.profile,
            ProfileEstimate(
                pin.profile,
                profile.label if profile else pin.profile,
                pin.class_path.rsplit(".", 1)[-1],
            ),
        )
        estimate.locales.append(locale.language_code)
        estimate.characters += characters.get(locale.language_code, 0)
    for name, estimate in found.items():
        translator = routing.translators[name]
        mine = {
            loc: texts for loc, texts in billable.items() if loc.language_code in estimate.locales
        }
        estimate.spend = estimate_spend(translator, source, mine, contexts, scale)
    return list(found.values())


def total_spend(estimates: list[ProfileEstimate]) -> Spend | None:
    spends = [e.spend for e in estimates if e.spend is not None]
    if not spends:
        return None
    total = spends[0]
    for spend in spends[1:]:
        total = total + spend
    return total


def describe_translators(
    result: Any, routing: Routing, source: Locale, targets: list[Locale]
) -> None:
    """Name the translators the run would use, with their quota and glossary warnings."""
    result.warnings += routing.errors
    translators = list(routing.translators.values())
    names = dict.fromkeys(translator_name(pin.class_path) for pin in routing.pins.values())
    result.translator = ", ".join(names)
    result.translator_name = ", ".join(str(t.display_name) for t in translators)
    result.writes_fake_text = any(isinstance(t, PseudoTranslator) for t in translators)
    labels = {p.name: p.label for p in configured_profiles().values()}
    result.locale_profiles = {
        t.language_code: labels.get(routing.pins[t.pk].profile, routing.pins[t.pk].profile)
        for t in targets
    }
    check_unsupported(result)
    for name, translator in routing.translators.items():
        check_translator(result, translator)
        if translator.submits_batches:
            result.warnings.append(
                f"{labels.get(name, name)} sends its requests through the provider's Batch API: "
                f"the estimate is at the batch price, and the answers come within "
                f"{translator.batch_window} (no worker is busy meanwhile)."
            )
        served = [t.pk for t in targets if routing.pins[t.pk].profile == name]
        if hasattr(translator, "glossaries"):
            result.warnings += outdated_warnings(source.pk, served)


def check_unsupported(result: Any) -> None:
    if result.unsupported_locales:
        result.warnings.append(
            "The translator cannot translate into: "
            + ", ".join(result.unsupported_locales)
            + " (left out of the figures above; a run into them is refused)."
        )


def check_translator(result: Any, translator: Any) -> None:
    try:
        result.usage = result.usage or translator.usage()
    except Exception as err:  # the quota is information here: a failure is a warning
        result.warnings.append(f"The translator's usage could not be read: {err}")
    left = result.usage.remaining if result.usage else None
    if left is not None and result.total_characters > left:
        result.warnings.append(
            f"About {result.total_characters} characters to translate, but only {left} "
            "are left in the translator's quota: the run will pause when it runs out."
        )
