"""System checks of the translator profiles: each class loads, has what it needs, fits the
lease, and the routing and editor choices name profiles that exist."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.core import checks

from ..translators.loading import (
    NotATranslatorError,
    TranslatorLoadError,
    configuration_problems,
    load_translator_class,
    reports_money,
)
from ..translators.profiles import Profile, configured_profiles, profile_problems
from ..translators.pseudo import PseudoTranslator
from .settings import get_settings, setting_problems

# What a malformed translator setting raises when it is read (reported as E003/E009).
MALFORMED = (KeyError, TypeError, AttributeError, ValueError)
TRANSLATOR_KEYS = ("TRANSLATOR", "TRANSLATORS", "LOCALE_TRANSLATORS", "EDITOR_TRANSLATORS")
TRY_WITHOUT_A_KEY = (
    "To try the plugin without a key, use the pseudo translator (fake output, never to "
    "publish): WAGTAIL_BULK_TRANSLATE['TRANSLATOR'] = "
    "{'CLASS': 'wagtail_bulk_translate.translators.pseudo.PseudoTranslator'}."
)


def key_has_problems(key: str) -> bool:
    return any(problem.path.startswith(f"[{key!r}]") for problem in setting_problems())


def translator_setting_has_problems() -> bool:
    return any(key_has_problems(key) for key in TRANSLATOR_KEYS)


def profiles_or_none() -> dict[str, Profile] | None:
    """The configured profiles; None when a setting is malformed (check_translator says so)."""
    try:
        return configured_profiles()
    except MALFORMED:
        return None


def named(profile: Profile, profiles: dict[str, Profile], message: str) -> str:
    """A message about one profile, naming it when the site has several."""
    return f"Translator profile {profile.name!r}: {message}" if len(profiles) > 1 else message


def loaded_classes() -> list[tuple[Profile, type]]:
    """(profile, class) for every profile whose class loads (the others: check_translator)."""
    found = []
    for profile in (profiles_or_none() or {}).values():
        try:
            found.append((profile, load_translator_class(profile.class_path)))
        except TranslatorLoadError:
            continue
    return found


@checks.register()
def check_translator(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if translator_setting_has_problems():
        return []  # check_settings names what is wrong with WAGTAIL_BULK_TRANSLATE['TRANSLATOR']
    hint = (
        "Fix WAGTAIL_BULK_TRANSLATE['TRANSLATOR']['CLASS'] (or WAGTAILLOCALIZE_MACHINE_TRANSLATOR)."
    )
    profiles = profiles_or_none()
    if profiles is None:
        return [
            checks.Error(
                "The machine translator setting must be a dict with a 'CLASS' import path "
                "and optional 'OPTIONS'.",
                hint=hint,
                id="wagtail_bulk_translate.E003",
            )
        ]
    errors: list[checks.CheckMessage] = []
    for profile in profiles.values():
        if len(profiles) > 1:
            hint = f"Fix WAGTAIL_BULK_TRANSLATE['TRANSLATORS'][{profile.name!r}]['CLASS']."
        try:
            load_translator_class(profile.class_path)
        except NotATranslatorError as err:
            message = named(profile, profiles, str(err))
            errors.append(checks.Error(message, hint=hint, id="wagtail_bulk_translate.E011"))
        except TranslatorLoadError as err:
            message = named(profile, profiles, str(err))
            errors.append(checks.Error(message, hint=hint, id="wagtail_bulk_translate.E003"))
    return errors


@checks.register()
def check_translator_routing(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """LOCALE_TRANSLATORS and EDITOR_TRANSLATORS must name profiles that exist."""
    if translator_setting_has_problems() or profiles_or_none() is None:
        return []  # reported by check_settings / check_translator
    return [
        checks.Error(message, hint=hint, id="wagtail_bulk_translate.E016")
        for message, hint in profile_problems()
    ]


@checks.register()
def check_translator_options(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Ask each profile's translator what is missing from its options (e.g. DeepL without a
    key).

    A warning, not an error: an error would stop every management command, every worker
    (Wagtail's own tasks included) and `bulk_translate status`; starting a run that needs the
    translator is what is refused (runs.start).
    """
    if translator_setting_has_problems():
        return []  # reported by check_settings
    profiles = profiles_or_none() or {}
    warnings: list[checks.CheckMessage] = []
    for profile, _class in loaded_classes():
        try:
            problems = configuration_problems(profile.class_path, profile.options)
        except (*MALFORMED, TranslatorLoadError):
            continue  # reported by check_translator
        warnings += [
            checks.Warning(
                named(profile, profiles, f"{problem.message} Runs cannot start until it is set."),
                hint=f"{problem.hint} {TRY_WITHOUT_A_KEY}",
                id="wagtail_bulk_translate.W003",
            )
            for problem in problems
        ]
    return warnings


@checks.register()
def check_lease_outlasts_a_call(
    app_configs: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """A unit's lease must outlast one translator call (its timeouts and retries): the worker
    renews it while the call runs, but a frozen or cut-off renewal must not hand the unit to
    another worker in the middle of a call that is still paid for."""
    if translator_setting_has_problems() or key_has_problems("LEASE_SECONDS"):
        return []  # reported by check_settings
    lease = get_settings().LEASE_SECONDS
    errors: list[checks.CheckMessage] = []
    for profile, translator_class in loaded_classes():
        longest = getattr(translator_class, "longest_call_seconds", None)
        seconds = longest(profile.options) if longest is not None else None
        if seconds is None or lease >= seconds:
            continue
        errors.append(
            checks.Error(
                f"WAGTAIL_BULK_TRANSLATE['LEASE_SECONDS'] is {lease}, but one call of "
                f"{translator_class.__name__} may take {seconds:.0f} s with its timeout and "
                "retries.",
                hint=f"Set LEASE_SECONDS to at least {math.ceil(seconds)}, or lower the "
                "translator's timeout or retries in its profile's OPTIONS.",
                id="wagtail_bulk_translate.E014",
            )
        )
    return errors


@checks.register()
def check_cost_caps(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """A cost cap counts the money a translator reports; one that bills characters (DeepL)
    reports none, so a site whose profiles all bill characters would never be held by it."""
    if key_has_problems("BUDGETS") or translator_setting_has_problems():
        return []  # reported by check_settings
    if not cost_caps_configured(get_settings().BUDGETS or {}):
        return []
    classes = [translator_class for _profile, translator_class in loaded_classes()]
    if not classes or any(reports_money(translator_class) for translator_class in classes):
        return []  # a translator that cannot load is reported by check_translator
    names = ", ".join(dict.fromkeys(translator_class.__name__ for translator_class in classes))
    return [
        checks.Warning(
            f"WAGTAIL_BULK_TRANSLATE['BUDGETS'] sets a cost cap, but {names} bills characters "
            "and reports no money: the cost cap never holds a run.",
            hint="Cap characters instead: {'daily': {'characters': 100000}}.",
            id="wagtail_bulk_translate.W009",
        )
    ]


def cost_caps_configured(budgets: dict[str, Any]) -> bool:
    groups = [budgets, *(budgets.get("origins") or {}).values()]
    return any(
        ((group or {}).get(period) or {}).get("cost") is not None
        for group in groups
        for period in ("run", "daily", "monthly")
    )


@checks.register()
def check_pseudo_translator(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The pseudo translator writes [ẗéẍẗ] like this: fine in development, not on a real site."""
    if settings.DEBUG or translator_setting_has_problems():
        return []
    if not any(issubclass(cls, PseudoTranslator) for _profile, cls in loaded_classes()):
        return []
    return [
        checks.Warning(
            "Runs translate with the pseudo translator (a test double: it writes accented "
            "English, not translations), and DEBUG is off.",
            hint="Set WAGTAIL_BULK_TRANSLATE['TRANSLATOR'] to a real machine translator, e.g. "
            "{'CLASS': 'wagtail_bulk_translate.translators.deepl.DeepLTranslator'} (see "
            "docs/how-to/deepl.md).",
            id="wagtail_bulk_translate.W006",
        )
    ]


@checks.register()
def check_glossary_profiles(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The admin's glossary syncs to one DeepL account: the first profile that keeps
    glossaries. Another such profile (another account) translates without it."""
    if translator_setting_has_problems():
        return []
    keeping = [p.name for p, cls in loaded_classes() if hasattr(cls, "glossaries")]
    if len(keeping) < 2:
        return []
    others = ", ".join(repr(name) for name in keeping[1:])
    return [
        checks.Warning(
            f"The admin's glossary syncs to the DeepL account of the translator profile "
            f"{keeping[0]!r} only: {others} translate without it.",
            hint="Route the locales that need the glossary to that profile, or give the others "
            "their own glossaries (GLOSSARIES in their OPTIONS).",
            id="wagtail_bulk_translate.W011",
        )
    ]
