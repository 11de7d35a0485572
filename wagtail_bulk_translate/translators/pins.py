"""Which profile translates each locale of a run, chosen when it starts and pinned for its life.

A run stores, per target locale, the profile's name, class and public options and a keyed
digest of its credentials (never the credentials: :mod:`.secrets`). Resume and retry re-read a
pinned profile's options (:mod:`wagtail_bulk_translate.engine.translator_settings`), never the
routing: a locale stays with the profile it started with. Runs from before profiles pinned one
translator on ``Run.translator_class``; it serves every locale of theirs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import RunConfigurationError
from .base import BulkTranslator
from .loading import build_translator
from .profiles import DEFAULT_PROFILE, Profile, candidates, configured_profiles, language_of
from .secrets import credentials_digest, split_credentials

if TYPE_CHECKING:
    from wagtail.models import Locale

    from ..models import Run


@dataclass(frozen=True)
class TranslatorPin:
    """The translator one locale of a run uses."""

    profile: str
    class_path: str
    options: dict[str, Any]
    credentials_digest: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "class": self.class_path,
            "options": self.options,
            "credentials_digest": self.credentials_digest,
        }

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> TranslatorPin:
        return cls(
            profile=str(value.get("profile") or DEFAULT_PROFILE),
            class_path=str(value["class"]),
            options=dict(value.get("options") or {}),
            credentials_digest=str(value.get("credentials_digest") or ""),
        )

    def build(self) -> BulkTranslator:
        return build_translator(self.class_path, self.options, self.profile)


def pin_of_profile(profile: Profile) -> TranslatorPin:
    """A profile as a run stores it: options without credentials, and their digest."""
    public, credentials = split_credentials(profile.options)
    return TranslatorPin(profile.name, profile.class_path, public, credentials_digest(credentials))


def legacy_pin(run: Run) -> TranslatorPin:
    return TranslatorPin(
        DEFAULT_PROFILE,
        run.translator_class,
        dict(run.translator_options or {}),
        run.translator_credentials_digest,
    )


def run_pins(run: Run) -> dict[int, TranslatorPin]:
    """{target locale id: its pin}, for the locales the run pinned per locale."""
    return {
        int(locale_id): TranslatorPin.from_json(value)
        for locale_id, value in (run.locale_translators or {}).items()
    }


def pin_for_locale(run: Run, locale_id: int) -> TranslatorPin:
    """The translator a locale of the run uses (the run's single translator before profiles)."""
    value = (run.locale_translators or {}).get(str(locale_id))
    return TranslatorPin.from_json(value) if value else legacy_pin(run)


def profiles_of_run(run: Run) -> list[str]:
    """The profile names the run uses, in the order its locales were pinned."""
    names = [pin.profile for pin in run_pins(run).values()] or [DEFAULT_PROFILE]
    return list(dict.fromkeys(names))


class RunTranslators:
    """A run's translators, one per profile, built when a locale first needs one."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self._built: dict[str, BulkTranslator] = {}

    def pin(self, locale_id: int) -> TranslatorPin:
        return pin_for_locale(self.run, locale_id)

    def for_locale(self, locale_id: int) -> BulkTranslator:
        pin = self.pin(locale_id)
        key = pin.profile
        if key not in self._built:
            self._built[key] = pin.build()
        return self._built[key]


def choice_for(locale: Locale, choice: Mapping[str, str]) -> str | None:
    """The profile a run's own choice names for a locale: by code, language, then ``"*"``."""
    by_key = {key.lower(): name for key, name in choice.items()}
    code = locale.language_code.lower()
    for key in (code, language_of(code), "*"):
        if key in by_key:
            return by_key[key]
    return None


def check_choice(
    choice: Mapping[str, str], targets: Iterable[Locale], allowed: Iterable[str]
) -> None:
    """Refuse a run's choice that names an unknown profile, a profile outside ``allowed``, or a
    locale that is not one of the run's targets."""
    allowed = list(allowed)
    codes = {t.language_code.lower() for t in targets}
    codes |= {language_of(code) for code in codes}
    for key, name in choice.items():
        if key != "*" and key.lower() not in codes:
            raise RunConfigurationError(
                f"The translator choice {key}={name} names a locale the run does not translate "
                f"into: choose among {', '.join(sorted(codes))}."
            )
        if name not in allowed:
            raise RunConfigurationError(
                f"Unknown translator profile {name!r}: choose one of {', '.join(allowed)}."
            )


def choose_pins(
    source: Locale,
    targets: list[Locale],
    choice: Mapping[str, str] | None = None,
    *,
    allowed: Iterable[str] | None = None,
    checked: bool = False,
) -> dict[int, TranslatorPin]:
    """{target locale id: the pin a new run stores}: the run's own choice where it makes one
    (refused when that profile cannot serve the locale), else the routing's first profile that
    can serve it. Raises RunConfigurationError naming the locales no profile serves."""
    profiles = configured_profiles()
    choice = dict(choice or {})
    if not checked:  # (``checked``: the caller checked the choice against all its targets)
        check_choice(choice, targets, profiles if allowed is None else allowed)
    built: dict[str, BulkTranslator] = {}
    pins: dict[int, TranslatorPin] = {}
    unserved: list[str] = []
    for target in targets:
        chosen = choice_for(target, choice)
        names = [chosen] if chosen else candidates(target.language_code)
        for name in names:
            profile = profiles.get(name)
            if profile is not None and serves(profile, source, target, built):
                pins[target.pk] = pin_of_profile(profile)
                break
        else:
            if chosen:
                raise RunConfigurationError(
                    f"The translator profile {profiles[chosen].label!r} cannot translate from "
                    f"{source.language_code} into {target.language_code}: choose another "
                    "profile for that locale."
                )
            unserved.append(target.language_code)
    if unserved and len(profiles) == 1:
        raise RunConfigurationError(
            f"The translator cannot translate from {source.language_code} into "
            f"{', '.join(unserved)}. Remove those locales or configure another translator."
        )
    if unserved:
        raise RunConfigurationError(
            f"No translator profile can translate from {source.language_code} into "
            f"{', '.join(unserved)}. Remove those locales or configure a profile that serves "
            "them (TRANSLATORS, LOCALE_TRANSLATORS)."
        )
    return pins


def serves(
    profile: Profile, source: Locale, target: Locale, built: dict[str, BulkTranslator]
) -> bool:
    if not profile.allows(target.language_code):
        return False
    if profile.name not in built:
        try:
            built[profile.name] = pin_of_profile(profile).build()
        except Exception as err:
            raise RunConfigurationError(
                f"The translator profile {profile.label!r} ({profile.class_path}) cannot be "
                f"loaded: {err}"
            ) from err
    return built[profile.name].can_translate(source, target)
