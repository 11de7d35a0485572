"""Output signatures: what, besides the source text, shaped a translation (a language model's
model, prompt, instructions, glossary), per target locale.

The signature is kept with each machine translation a run stores, in the StringTranslation's
``tool_name`` (see :func:`~wagtail_bulk_translate.localize.strings.machine_tool_name`). When it
changes, a ``changed`` run translates again the strings written under the old one (and only
those), and the coverage report counts their objects outdated. It is also folded into the
units' change-detection hash, so an object whose text did not change is not skipped as
"unchanged" when its translations are outdated. An empty signature (DeepL, pseudo) changes
nothing: hashes and tool names stay as they were.

A locale's translator profile is part of what it signs (for a named profile): moving a locale
to another profile outdates what the previous one wrote there, as a change of prompt does (see
:mod:`wagtail_bulk_translate.localize.tool_names`).

The admin's glossary and house style are not part of a signature: a change there outdates only
the texts it bears on (see :mod:`wagtail_bulk_translate.glossary.staleness`), folded into the
hash per object and checked per string by the plan and translation memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from wagtail.models import Locale

from ..glossary.staleness import PairChanges, changes_by_pair
from ..localize.tool_names import DEFAULT_PROFILE, machine_tool_name
from ..models import Run
from ..translators.base import BulkTranslator
from ..translators.pins import RunTranslators, TranslatorPin, choose_pins
from .work import ObjectWork, UnitWork


@dataclass(frozen=True)
class LocaleOutput:
    """What shapes a locale's translations: folded into its units' change-detection hashes
    (``signature``), and the tool name they are stored with (``tool``)."""

    signature: str
    tool: str


def locale_output(
    pin: TranslatorPin, translator: BulkTranslator, source: Locale, target: Locale
) -> LocaleOutput:
    signature = translator.output_signature(source, target)
    profiled = signature if pin.profile == DEFAULT_PROFILE else f"{pin.profile}:{signature}"
    return LocaleOutput(profiled, machine_tool_name(pin.class_path, signature, pin.profile))


def output_signatures(
    run: Run, translators: RunTranslators, locale_ids: Iterable[int]
) -> dict[int, LocaleOutput]:
    """{target locale id: what its profile's translator signs into it}."""
    locales = Locale.objects.in_bulk(set(locale_ids))
    return {
        pk: locale_output(translators.pin(pk), translators.for_locale(pk), run.source_locale, loc)
        for pk, loc in locales.items()
    }


def sign_objects(
    objects: list[ObjectWork],
    outputs: dict[int, LocaleOutput],
    changes: dict[int, PairChanges] | None = None,
) -> None:
    """Give each unit its locale's output signature, tool name and glossary/house style
    changes."""
    for obj in objects:
        for work in obj.units:
            output = outputs.get(work.unit.target_locale_id)
            work.signature = output.signature if output else ""
            work.tool = output.tool if output else ""
            work.rule_changes = (changes or {}).get(work.unit.target_locale_id, PairChanges())


def rule_changes(run: Run, locale_ids: Iterable[int]) -> dict[int, PairChanges]:
    """{target locale id: the pair's recorded glossary and house style changes}."""
    return changes_by_pair(run.source_locale_id, sorted(set(locale_ids)))


def fold_rule_changes(
    hashes: dict[int, str], works: list[UnitWork], texts: list[str]
) -> dict[int, str]:
    """The change-detection hashes with the glossary and house style changes that bear on the
    object's texts folded in: a changed term outdates the objects it occurs in, only those."""
    changes = {w.unit.target_locale_id: w.rule_changes for w in works}
    return {
        locale_id: signed_hash(
            value, changes[locale_id].digest(texts) if locale_id in changes else ""
        )
        for locale_id, value in hashes.items()
    }


def signed_hashes(hashes: dict[int, str], signatures: dict[int, str]) -> dict[int, str]:
    """The change-detection hashes with each locale's output signature folded in."""
    return {
        locale_id: signed_hash(value, signatures.get(locale_id, ""))
        for locale_id, value in hashes.items()
    }


def signed_hash(value: str, signature: str) -> str:
    if not signature:
        return value
    return hashlib.sha256(f"{value}:{signature}".encode()).hexdigest()


def configured_tool_names(source: Locale, targets: list[Locale]) -> dict[int, str]:
    """{locale id: the tool name a run started now would store its translations with, by the
    routing} (for the preflight's and the coverage report's translation memory). Locales no
    profile can serve are left out (the preflight says why)."""
    tools: dict[int, str] = {}
    for target in targets:
        try:
            pin = choose_pins(source, [target])[target.pk]
            output = locale_output(pin, pin.build(), source, target)
        except Exception:  # a broken configuration is reported elsewhere; nothing outdated
            continue
        tools[target.pk] = output.tool
    return tools
