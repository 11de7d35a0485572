"""Which machine translator a run uses, pinned on the run without its secrets."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string
from wagtail_localize.machine_translators.base import BaseMachineTranslator

from .base import BulkTranslator, ConfigurationProblem, as_bulk_translator
from .profiles import DEFAULT_PROFILE, configured_profiles, primary_profile_name
from .secrets import credentials_digest, merge_credentials, split_credentials


class TranslatorLoadError(ImproperlyConfigured):
    """The translator setting names something that cannot be used as a machine translator."""


class TranslatorImportError(TranslatorLoadError):
    """The class cannot be imported (missing module or name, or its module fails to import)."""


class NotATranslatorError(TranslatorLoadError):
    """The class imports, but is not a wagtail-localize machine translator."""


def load_translator_class(class_path: object) -> type[BaseMachineTranslator]:
    """The translator class named by ``class_path``, or a TranslatorLoadError saying why not."""
    if not isinstance(class_path, str) or not class_path:
        raise TranslatorImportError(
            f"The machine translator class must be an import path (a string), not {class_path!r}."
        )
    try:
        found = import_string(class_path)
    except Exception as err:  # any import failure is a settings problem, reported as such
        raise TranslatorImportError(
            f"The machine translator class {class_path!r} cannot be imported: {err}."
        ) from err
    if not (isinstance(found, type) and issubclass(found, BaseMachineTranslator)):
        raise NotATranslatorError(
            f"{class_path!r} is not a machine translator: expected a subclass of "
            "wagtail_bulk_translate.translators.base.BulkTranslator (or of wagtail-localize's "
            "BaseMachineTranslator)."
        )
    return found


def configured_translator_class() -> type[BaseMachineTranslator] | None:
    """The class of the translator new runs use; None when the setting cannot be loaded (the
    system checks say why)."""
    try:
        return load_translator_class(configured_translator()["CLASS"])
    except (KeyError, TypeError, AttributeError, ValueError, TranslatorLoadError):
        return None


def reports_money(translator_class: type[BaseMachineTranslator]) -> bool:
    """Whether the translator reports what its requests cost (a language model's spend); one
    that bills characters (DeepL) reports none, so only character caps hold its runs."""
    return getattr(translator_class, "estimate_spend", None) is not BulkTranslator.estimate_spend


def configured_translator() -> dict[str, Any]:
    """The primary profile's setting (see :mod:`.profiles`): the translator of locales no
    routing names; ``TRANSLATOR``, else wagtail-localize's, else the pseudo translator."""
    profile = configured_profiles()[primary_profile_name()]
    return {"CLASS": profile.class_path, "OPTIONS": dict(profile.options)}


def pinned_translator() -> tuple[str, dict[str, Any]]:
    """Class path and options of the primary profile as a run stores them; credentials stay in
    settings only (``translators.secrets`` says where they are found)."""
    config = configured_translator()
    public, _credentials = split_credentials(config["OPTIONS"])
    return config["CLASS"], public


def pinned_credentials_digest() -> str:
    """What a run stores of the configured credentials: a keyed digest, to tell a change."""
    _public, credentials = split_credentials(configured_translator()["OPTIONS"])
    return credentials_digest(credentials)


def profile_credentials(class_path: str, profile_name: str) -> dict[str, Any]:
    """Today's credentials for a pinned translator: its profile's, or (a profile renamed or
    removed since, a run from before profiles) those of a profile of the same class."""
    profiles = configured_profiles()
    profile = profiles.get(profile_name)
    if profile is None or profile.class_path != class_path:
        profile = next((p for p in profiles.values() if p.class_path == class_path), None)
    if profile is None:
        return {}
    return split_credentials(profile.options)[1]


def build_translator(
    class_path: str, pinned_options: dict[str, Any], profile: str = DEFAULT_PROFILE
) -> BulkTranslator:
    """Instantiate a run's translator: pinned options plus today's credentials of its profile."""
    credentials = profile_credentials(class_path, profile)
    translator_class = load_translator_class(class_path)
    translator = as_bulk_translator(
        translator_class(merge_credentials(pinned_options, credentials))
    )
    translator.profile = profile
    return translator


def glossary_profile_name() -> str | None:
    """The profile whose DeepL account the admin's glossary syncs to: the first whose class
    keeps glossaries of its own (None: no such profile)."""
    for profile in configured_profiles().values():
        try:
            if hasattr(load_translator_class(profile.class_path), "glossaries"):
                return profile.name
        except TranslatorLoadError:
            continue
    return None


def uses_synced_glossaries(translator: BulkTranslator) -> bool:
    """Whether the translator uses the glossaries synced from the admin: built for the
    glossary profile, or outside any profile (wagtail-localize's own button)."""
    return translator.profile is None or translator.profile == glossary_profile_name()


def configuration_problems(class_path: str, options: dict[str, Any]) -> list[ConfigurationProblem]:
    """What the translator class says is wrong with its options (none for other translators)."""
    translator_class = load_translator_class(class_path)
    if issubclass(translator_class, BulkTranslator):
        return translator_class.configuration_problems(options)
    return []


def configured_translator_problems() -> list[ConfigurationProblem]:
    """What is missing for each configured profile to work (e.g. DeepL without a key)."""
    profiles = configured_profiles()
    found = []
    for profile in profiles.values():
        for problem in configuration_problems(profile.class_path, profile.options):
            if len(profiles) > 1:
                problem = ConfigurationProblem(
                    f"Translator profile {profile.name!r}: {problem.message}", problem.hint
                )
            found.append(problem)
    return found
