"""Output signatures: what, besides the source text, shaped a translation (a language model's
model, prompt, instructions, glossary), per target locale.

The signature is kept with each machine translation a run stores, in the StringTranslation's
``tool_name`` (see :func:`~wagtail_bulk_translate.localize.strings.machine_tool_name`). When it
changes, a ``changed`` run translates again the strings written under the old one (and only
those), and the coverage report counts their objects outdated. It is also folded into the
units' change-detection hash, so an object whose text did not change is not skipped as
"unchanged" when its translations are outdated. An empty signature (DeepL, pseudo) changes
nothing: hashes and tool names stay as they were.

The admin's glossary and house style are not part of a signature: a change there outdates only
the texts it bears on (see :mod:`wagtail_bulk_translate.glossary.staleness`), folded into the
hash per object and checked per string by the plan and translation memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from wagtail.models import Locale

from ..glossary.staleness import PairChanges, changes_by_pair
from ..localize.strings import machine_tool_name
from ..models import Run
from ..translators.base import BulkTranslator
from ..translators.loading import pinned_translator
from .work import ObjectWork, UnitWork


def output_signatures(
    run: Run, translator: BulkTranslator, locale_ids: Iterable[int]
) -> dict[int, str]:
    """{target locale id: the translator's output signature into it}."""
    locales = Locale.objects.in_bulk(set(locale_ids))
    return {
        pk: translator.output_signature(run.source_locale, locale) for pk, locale in locales.items()
    }


def sign_objects(
    objects: list[ObjectWork],
    signatures: dict[int, str],
    changes: dict[int, PairChanges] | None = None,
) -> None:
    """Give each unit its locale's output signature and glossary/house style changes."""
    for obj in objects:
        for work in obj.units:
            work.signature = signatures.get(work.unit.target_locale_id, "")
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


def configured_tool_names(
    translator: BulkTranslator, source: Locale, targets: list[Locale]
) -> dict[int, str]:
    """{locale id: the tool name a run with the configured translator would store its
    translations with} (for the preflight's and the coverage report's translation memory)."""
    class_path, _options = pinned_translator()
    return {
        locale.pk: machine_tool_name(class_path, translator.output_signature(source, locale))
        for locale in targets
    }
