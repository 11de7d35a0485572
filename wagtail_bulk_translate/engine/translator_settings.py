"""Resume and retry take the translator settings as they are now, and say what changed.

A run stores its translator's class and public options (never credentials, which are always
read from settings; only their keyed digest is stored). Fixing a wrong option (e.g.
``SERVER_URL``) and retrying must fix the run, so the stored settings are replaced by today's
whenever the run is resumed or retried. A changed key is reported as "credentials changed",
never with its value.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..models import Run
from ..translators.loading import pinned_credentials_digest, pinned_translator
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


def take_current_translator(run_id: int, action: str) -> bool:
    """Store today's translator settings on the run; True (and recorded) if they changed.

    ``action`` says when ("resume", "retry"). Call inside the control's transaction.
    """
    run = Run.objects.select_for_update().get(pk=run_id)
    new_class, new_options = pinned_translator()
    new_digest = pinned_credentials_digest()
    changes = describe_change(
        run.translator_class, run.translator_options or {}, new_class, new_options
    )
    if CREDENTIALS_CHANGED not in changes and credentials_changed(
        run.translator_credentials_digest, new_digest
    ):
        changes.append(CREDENTIALS_CHANGED)
    if not changes:
        if run.translator_credentials_digest != new_digest:  # a run from before digests
            run.translator_credentials_digest = new_digest
            run.save(update_fields=["translator_credentials_digest"])
        return False
    now = timezone.now()
    run.translator_class, run.translator_options = new_class, new_options
    run.translator_credentials_digest = new_digest
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
            "translator_changed_at",
            "translator_change",
        ]
    )
    return True
