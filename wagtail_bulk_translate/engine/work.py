"""What a claim carries through the steps: one entry per object, one per unit (locale)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wagtail.models import TranslatableMixin

from ..glossary.staleness import PairChanges
from ..localize.segments import SourceString
from ..localize.sources import TranslationSource
from ..models import Unit
from ..revert.state import StringChanges


@dataclass
class StringNeeds:
    """For one (object, locale): strings to translate and strings resolved without a call."""

    to_translate: list[SourceString] = field(default_factory=list)
    resolved: dict[SourceString, Any] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.to_translate) + len(self.resolved)


@dataclass
class UnitWork:
    unit: Unit
    target: Any = None  # the existing target object, if any
    needs: StringNeeds = field(default_factory=StringNeeds)
    translated: dict[SourceString, str] = field(default_factory=dict)
    billed: int = 0
    done: bool = False
    # Answers whose markup the translator broke (the text is sent once more, then held).
    broken_answers: dict[SourceString, str] = field(default_factory=dict)
    # StringTranslations this unit created or changed, for revert.
    string_changes: StringChanges = field(default_factory=StringChanges)
    # The object it translates (its instance and strings give each text's context).
    source: ObjectWork | None = field(default=None, repr=False, compare=False)
    # The translator's output signature for this locale, kept with what it translates.
    signature: str = ""
    # The tool name its machine translations are stored with (class, profile, signature).
    tool: str = ""
    # The pair's glossary and house style changes: what they outdated is translated again.
    rule_changes: PairChanges = field(default_factory=PairChanges)
    # Texts that could not be translated, left in the source language for a person to review:
    # {string: {"code": error code, "message": why, "answer": the engine's answer or ""}}.
    held: dict[SourceString, dict[str, str]] = field(default_factory=dict)

    def untranslated(self) -> list[SourceString]:
        """The strings still waiting for a translation (neither translated nor held)."""
        return [
            s for s in self.needs.to_translate if s not in self.translated and s not in self.held
        ]


@dataclass
class ObjectWork:
    """One source object and the claimed units (locales) that share its extraction."""

    units: list[UnitWork]
    instance: Any = None
    source: TranslationSource | None = None
    # Change-detection hash per target locale (see prepare.locale_hashes).
    hashes: dict[int, str] = field(default_factory=dict)
    # Objects the source refers to (snippet choosers): their translation changes the target.
    related_keys: set[Any] = field(default_factory=set)
    version: str = ""
    strings: list[SourceString] = field(default_factory=list)
    # Site settings only: the segments their translations are ingested with.
    segments: list = field(default_factory=list)

    @property
    def is_site_setting(self) -> bool:
        """Per-site settings rows have no TranslationSource: they are written row to row."""
        return not isinstance(self.instance, TranslatableMixin)

    def open_units(self) -> list[UnitWork]:
        return [work for work in self.units if not work.done]
