"""Resume and retry take the translator settings as they are now, and say what changed.

A run stores its translator's class and public options (never secrets, which are always read
from settings). Fixing a wrong option (e.g. ``SERVER_URL``) and retrying must fix the run, so
the stored settings are replaced by today's whenever the run is resumed or retried.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..models import Run
from ..translators.loading import pinned_translator


def describe_change(
    old_class: str, old: dict[str, Any], new_class: str, new: dict[str, Any]
) -> list[str]:
    changes = []
    if old_class != new_class:
        changes.append(f"class {old_class} → {new_class}")
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            changes.append(f"{name} {old.get(name)!r} → {new.get(name)!r}")
    return changes


def take_current_translator(run_id: int, action: str) -> bool:
    """Store today's translator settings on the run; True (and recorded) if they changed.

    ``action`` says when ("resume", "retry"). Call inside the control's transaction.
    """
    run = Run.objects.select_for_update().get(pk=run_id)
    new_class, new_options = pinned_translator()
    changes = describe_change(
        run.translator_class, run.translator_options or {}, new_class, new_options
    )
    if not changes:
        return False
    now = timezone.now()
    run.translator_class, run.translator_options = new_class, new_options
    run.translator_changed_at = now
    run.translator_change = (
        f"settings changed since the run started, taken on {action} at "
        f"{now:%Y-%m-%d %H:%M:%S} UTC: {'; '.join(changes)}"
    )
    run.save(
        update_fields=[
            "translator_class",
            "translator_options",
            "translator_changed_at",
            "translator_change",
        ]
    )
    return True
