"""The translator keys of the ``WAGTAIL_BULK_TRANSLATE`` settings: the single translator, the
named profiles, their routing per locale, and what editors may choose (see
:mod:`wagtail_bulk_translate.translators.profiles`). Declared like every other key
(:mod:`.settings`), in a base class of the settings dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .rules import AnyDict, DictOf, Flag, Keys, ListOf, OneOf, Rule, Text


def declared(rule: Rule, doc: str) -> dict[str, Any]:
    """A key's rule (type and range) and what it does, declared beside its type and default."""
    return {"rule": rule, "doc": doc}


TRANSLATOR_RULE = Keys(
    {"CLASS": Text(), "OPTIONS": AnyDict(optional=True)}, required=("CLASS",), optional=True
)
PROFILE_RULE = Keys(
    {
        "CLASS": Text(),
        "OPTIONS": AnyDict(optional=True),
        "NAME": Text(optional=True),
        "LOCALES": ListOf(Text()),
    },
    required=("CLASS",),
)
PROFILES_RULE = DictOf(Text(), PROFILE_RULE, shape='{"profile name": {"CLASS": ..., ...}}')
PROFILE_NAMES_RULE = OneOf((Text(), ListOf(Text())))
ROUTING_RULE = DictOf(
    Text(), PROFILE_NAMES_RULE, shape='{"locale code", "language" or "*": "profile name"}'
)


@dataclass(frozen=True)
class TranslatorKeys:
    TRANSLATOR: dict[str, Any] | None = field(
        default=None,
        metadata=declared(
            TRANSLATOR_RULE,
            '`{"CLASS": "...", "OPTIONS": {...}}` of a wagtail-localize machine translator. '
            "`None` uses `WAGTAILLOCALIZE_MACHINE_TRANSLATOR`, then the pseudo translator (a "
            "test double: a warning outside `DEBUG`). Credentials are never stored on runs "
            "(see docs/how-to/security.md).",
        ),
    )
    TRANSLATORS: dict[str, dict[str, Any]] = field(
        default_factory=dict,
        metadata=declared(
            PROFILES_RULE,
            'named translator profiles, each `{"CLASS": ..., "OPTIONS": {...}, "NAME": '
            'display name, "LOCALES": [codes it may serve]}` (`LOCALES` optional: any the '
            'class can do). `TRANSLATOR` is the profile `"default"` (see '
            "docs/how-to/translator-profiles.md).",
        ),
    )
    LOCALE_TRANSLATORS: dict[str, Any] = field(
        default_factory=dict,
        metadata=declared(
            ROUTING_RULE,
            "which profile translates each target locale: a full code (`pt-BR`), a language "
            '(`pt`) or `"*"`, to a profile name or a list of them (tried in order). Empty: '
            '`"default"` (or the first profile) for every locale.',
        ),
    )
    TRANSLATOR_FALLBACK: bool = field(
        default=True,
        metadata=declared(
            Flag(),
            "a locale whose routed profiles cannot serve it (the class does not support it, or "
            "its `LOCALES` leave it out) goes to the next profile that can, in `TRANSLATORS` "
            "order; off: such a locale is refused when the run starts.",
        ),
    )
    EDITOR_TRANSLATORS: list[str] = field(
        default_factory=list,
        metadata=declared(
            ListOf(Text()),
            "profiles editors may choose for a run (new-run form and bulk actions), for all "
            "its locales or per locale; empty: the routing only. The command line may name any "
            "profile.",
        ),
    )
    RETRANSLATE_ON_PROFILE_CHANGE: bool = field(
        default=True,
        metadata=declared(
            Flag(),
            'a "changed" run translates again what another profile wrote for a locale (like '
            "a change of prompt); off: those translations are kept.",
        ),
    )
