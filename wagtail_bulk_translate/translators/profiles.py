"""Translator profiles: the named translators a site configures, and which one serves a locale.

``TRANSLATORS`` names the profiles; the single ``TRANSLATOR`` (or wagtail-localize's
``WAGTAILLOCALIZE_MACHINE_TRANSLATOR``, or else the pseudo translator) is the profile
``"default"``. ``LOCALE_TRANSLATORS`` routes each target locale to a profile by its full code,
its language or ``"*"``; a profile that cannot serve a locale is passed over for the next one
(:func:`candidates`), so a run never fails units because the first profile does not speak the
language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from ..conf import get_settings

DEFAULT_PROFILE = "default"
PSEUDO_TRANSLATOR = "wagtail_bulk_translate.translators.pseudo.PseudoTranslator"
ROUTED_TRANSLATOR = "wagtail_bulk_translate.translators.routed.RoutedTranslator"
# Profile names go into the tool name kept with each translation ("(bulk, profile NAME)").
PROFILE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


@dataclass(frozen=True)
class Profile:
    """One configured translator: its class, options (credentials included: never stored)
    and the locales it may serve (empty: any its class can do)."""

    name: str
    class_path: str
    options: dict[str, Any] = field(default_factory=dict)
    display_name: str = ""
    locales: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.display_name or self.name

    def allows(self, locale_code: str) -> bool:
        """Whether the profile's own ``LOCALES`` let it serve the locale (code or language)."""
        if not self.locales:
            return True
        allowed = {code.lower() for code in self.locales}
        return locale_code.lower() in allowed or language_of(locale_code) in allowed


def language_of(locale_code: str) -> str:
    return re.split(r"[-_]", locale_code.lower(), maxsplit=1)[0]


def localize_translator_setting() -> dict[str, Any] | None:
    """wagtail-localize's machine translator setting, unless it routes through the plugin
    (``translators.routed``: it cannot be a profile of its own routing)."""
    config = getattr(settings, "WAGTAILLOCALIZE_MACHINE_TRANSLATOR", None)
    if isinstance(config, dict) and config.get("CLASS") == ROUTED_TRANSLATOR:
        return None
    return config


def profile_from_setting(name: str, config: Any) -> Profile:
    """A profile from its settings dict; KeyError/TypeError/AttributeError when malformed
    (the system checks say what is wrong)."""
    return Profile(
        name=name,
        class_path=config["CLASS"],
        options=dict(config.get("OPTIONS") or {}),
        display_name=str(config.get("NAME") or ""),
        locales=tuple(config.get("LOCALES") or ()),
    )


def configured_profiles() -> dict[str, Profile]:
    """Every profile, in settings order: ``"default"`` first when ``TRANSLATOR`` is set; with
    no ``TRANSLATORS`` either, ``"default"`` is wagtail-localize's machine translator setting,
    else the pseudo translator."""
    profiles: dict[str, Profile] = {}
    conf = get_settings()
    named = conf.TRANSLATORS or {}
    single = conf.TRANSLATOR or (None if named else localize_translator_setting())
    if single:
        profiles[DEFAULT_PROFILE] = profile_from_setting(DEFAULT_PROFILE, single)
    elif not named:
        profiles[DEFAULT_PROFILE] = Profile(DEFAULT_PROFILE, PSEUDO_TRANSLATOR)
    for name, config in named.items():
        profiles.setdefault(name, profile_from_setting(name, config))
    return profiles


def primary_profile_name() -> str:
    """The profile of locales no routing names: ``"*"``'s first, else the first profile."""
    return candidates("*")[0]


def routed_names(locale_code: str, routing: dict[str, Any]) -> list[str]:
    """The profile names ``LOCALE_TRANSLATORS`` gives a locale: its full code's, then its
    language's, then ``"*"``'s, each a name or a list of names."""
    by_key = {str(key).lower(): value for key, value in routing.items()}
    names: list[str] = []
    for key in (locale_code.lower(), language_of(locale_code), "*"):
        value = by_key.get(key)
        if value is None:
            continue
        names += [value] if isinstance(value, str) else list(value)
    return names


def candidates(locale_code: str, preferred: Iterable[str] = ()) -> list[str]:
    """The profile names to try for a locale, best first: ``preferred`` (a run's own choice),
    the routing, then (with ``TRANSLATOR_FALLBACK``) every other profile in settings order."""
    conf = get_settings()
    profiles = configured_profiles()
    names = list(preferred) + routed_names(locale_code, conf.LOCALE_TRANSLATORS or {})
    if not names:
        names = [next(iter(profiles))]
    if conf.TRANSLATOR_FALLBACK:
        names += list(profiles)
    unique: list[str] = []
    for name in names:
        if name not in unique:
            unique.append(name)
    return unique


def profile_problems() -> list[tuple[str, str]]:
    """(message, hint) for profile names, routing and editor choices that name no profile."""
    conf = get_settings()
    found: list[tuple[str, str]] = []
    named = conf.TRANSLATORS or {}
    if DEFAULT_PROFILE in named and conf.TRANSLATOR:
        found.append(
            (
                "TRANSLATORS has a profile named 'default', and TRANSLATOR is set: TRANSLATOR "
                "is the profile 'default'.",
                "Rename the profile, or move TRANSLATOR into TRANSLATORS['default'].",
            )
        )
    for name in named:
        if isinstance(name, str) and not PROFILE_NAME.match(name):
            found.append(
                (
                    f"The translator profile name {name!r} is not a short name.",
                    "Use letters, digits, '-' and '_' only (at most 40): the name is kept "
                    "with every translation the profile writes.",
                )
            )
    known = set(configured_profiles())
    routing = conf.LOCALE_TRANSLATORS or {}
    for key, value in routing.items():
        for name in [value] if isinstance(value, str) else list(value or ()):
            if name not in known:
                found.append(
                    (
                        f"LOCALE_TRANSLATORS[{key!r}] names the profile {name!r}, which "
                        "TRANSLATORS does not define.",
                        f"Use one of {', '.join(sorted(known))}.",
                    )
                )
    for name in conf.EDITOR_TRANSLATORS or ():
        if name not in known:
            found.append(
                (
                    f"EDITOR_TRANSLATORS names the profile {name!r}, which TRANSLATORS does "
                    "not define.",
                    f"Use one of {', '.join(sorted(known))}.",
                )
            )
    return found
