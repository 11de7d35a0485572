"""Resume and retry take the translator settings as they are now, and say what changed.

A run stores, per locale, its translator profile's class and public options (never
credentials, which are always read from settings; only their keyed digest is stored). Fixing a
wrong option (e.g. ``SERVER_URL``) and retrying must fix the run, so the stored settings are
replaced by today's whenever the run is resumed or retried. A changed key is reported as
"credentials changed", never with its value. The routing is never re-read: each locale keeps
its profile.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..models import Run
from ..translators.pins import TranslatorPin, legacy_pin, pin_of_profile, run_pins
from ..translators.profiles import configured_profiles, primary_profile_name
from ..translators.secrets import split_credentials

CREDENTIALS_CHANGED = "credentials changed"


def describe_change(
    old_class: str, old: dict[str, Any], new_class: str, new: dict[str, Any]
) -> list[str]:
    """What changed between two sets of stored options; anything that looks like a credential
    (in options stored before credentials were recognised everywhere) is named, not shown."""
    old, old_credentials = split_credentials(old)
    new, new_credentials = split_credentials(new)
    changes = []
    if old_class != new_class:
        changes.append(f"class {old_class} → {new_class}")
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            changes.append(f"{name} {old.get(name)!r} → {new.get(name)!r}")
    if old_credentials != new_credentials:
        changes.append(CREDENTIALS_CHANGED)
    return changes


def credentials_changed(stored_digest: str, current_digest: str) -> bool:
    # Runs from before digests were stored have none: nothing to compare, nothing reported.
    return bool(stored_digest) and stored_digest != current_digest


def current_pin(pin: TranslatorPin, *, legacy: bool) -> TranslatorPin:
    """The pinned profile as the settings define it today (the primary profile for a run from
    before profiles); unchanged when the profile is no longer configured."""
    profiles = configured_profiles()
    profile = profiles.get(primary_profile_name() if legacy else pin.profile)
    return pin if profile is None else pin_of_profile(profile)


def pin_changes(old: TranslatorPin, new: TranslatorPin) -> list[str]:
    changes = describe_change(old.class_path, old.options, new.class_path, new.options)
    if CREDENTIALS_CHANGED not in changes and credentials_changed(
        old.credentials_digest, new.credentials_digest
    ):
        changes.append(CREDENTIALS_CHANGED)
    return changes


def take_current_translator(run_id: int, action: str) -> bool:
    """Store today's options of each profile the run pinned; True (and recorded) if they
    changed. The locales keep their profiles: the routing is never re-read.

    ``action`` says when ("resume", "retry"). Call inside the control's transaction.
    """
    run = Run.objects.select_for_update().get(pk=run_id)
    pins = run_pins(run)
    legacy = not pins
    old_pins = {0: legacy_pin(run)} if legacy else pins
    new_pins = {key: current_pin(pin, legacy=legacy) for key, pin in old_pins.items()}
    by_profile = {pin.profile: (pin, new_pins[key]) for key, pin in old_pins.items()}
    changes = []
    for name, (old, new) in by_profile.items():
        found = pin_changes(old, new)
        changes += [f"{name}: {change}" for change in found] if len(by_profile) > 1 else found
    first = next(iter(new_pins.values()))
    if not changes:
        if run.translator_credentials_digest != first.credentials_digest:  # before digests
            run.translator_credentials_digest = first.credentials_digest
            run.save(update_fields=["translator_credentials_digest"])
        return False
    now = timezone.now()
    run.translator_class, run.translator_options = first.class_path, first.options
    run.translator_credentials_digest = first.credentials_digest
    if not legacy:
        run.locale_translators = {str(key): pin.to_json() for key, pin in new_pins.items()}
    run.translator_changed_at = now
    run.translator_change = (
        f"settings changed since the run started, taken on {action} at "
        f"{now:%Y-%m-%d %H:%M:%S} UTC: {'; '.join(changes)}"
    )
    run.save(
        update_fields=[
            "translator_class",
            "translator_options",
            "translator_credentials_digest",
            "locale_translators",
            "translator_changed_at",
            "translator_change",
        ]
    )
    return True
