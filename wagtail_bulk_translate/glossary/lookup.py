"""The glossary and house style of a language pair, as translators read them.

These are the only functions a translator needs::

    entries = glossary_entries(source_locale, target_locale)   # every entry of the pair
    entries_in_texts(entries, texts)                          # those a batch mentions
    house_style(target_locale)                                # formality, instructions

A never-translate term is an entry whose target is its own source text, so a translator that
only knows "source → target" pairs (DeepL, a prompt's term list) protects it without a special
case. Locales are Wagtail ``Locale`` objects or their ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from wagtail.models import Locale

from ..models import DeepLGlossary, GlossaryTerm, GlossaryTranslation
from ..models import HouseStyle as HouseStyleRow
from .matching import occurs


@dataclass(frozen=True)
class GlossaryEntry:
    """One term of a language pair: ``source`` is translated as ``target``."""

    source: str
    target: str
    case_sensitive: bool = False
    never_translate: bool = False

    def occurs_in(self, text: str) -> bool:
        return occurs(self.source, text, case_sensitive=self.case_sensitive)


@dataclass(frozen=True)
class HouseStyle:
    """How a target locale should read; empty values leave the translator's options in force."""

    formality: str = ""  # a DeepL formality value, "" when the admin sets none
    instructions: str = ""  # free text for language-model translators


def locale_id(locale: Locale | int) -> int:
    return locale if isinstance(locale, int) else locale.pk


def glossary_entries(
    source_locale: Locale | int, target_locale: Locale | int
) -> list[GlossaryEntry]:
    """Every entry of the pair, sorted by source term: the terms translated into the target
    locale, and the never-translate terms (mapped to themselves) of the source locale."""
    source_id, target_id = locale_id(source_locale), locale_id(target_locale)
    kept = GlossaryTerm.objects.of_source(source_id).filter(never_translate=True)
    entries = [
        GlossaryEntry(term.source_term, term.source_term, term.case_sensitive, True)
        for term in kept.only("source_term", "case_sensitive")
    ]
    translated = GlossaryTranslation.objects.filter(
        term__source_locale_id=source_id, term__never_translate=False, target_locale_id=target_id
    ).values_list("term__source_term", "target_term", "term__case_sensitive")
    entries += [GlossaryEntry(source, target, case) for source, target, case in translated]
    return sorted(entries, key=lambda entry: (entry.source.lower(), entry.source))


def entries_in_texts(entries: Iterable[GlossaryEntry], texts: Iterable[str]) -> list[GlossaryEntry]:
    """The entries whose source term occurs in at least one of ``texts`` (what a prompt needs)."""
    texts = list(texts)
    return [entry for entry in entries if any(entry.occurs_in(text) for text in texts)]


def house_style(target_locale: Locale | int) -> HouseStyle:
    """The admin's house style of a target locale (empty when it has none)."""
    row = HouseStyleRow.objects.filter(locale_id=locale_id(target_locale)).first()
    if row is None:
        return HouseStyle()
    return HouseStyle(formality=row.formality, instructions=row.instructions.strip())


def synced_glossary_id(source_locale: Locale | int, target_locale: Locale | int) -> str:
    """The DeepL glossary last synced for the pair ("" when there is none). A glossary whose
    latest sync failed keeps serving its previous terms until a sync succeeds."""
    found = DeepLGlossary.objects.filter(
        source_locale_id=locale_id(source_locale), target_locale_id=locale_id(target_locale)
    ).values_list("glossary_id", flat=True)
    return next(iter(found), "")
