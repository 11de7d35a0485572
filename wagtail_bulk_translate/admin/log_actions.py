"""Audit log actions of runs, shown in Wagtail's site history report."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from wagtail.log_actions import LogFormatter, log

from ..localize.target_writer import TRANSLATED_ACTION
from ..models import Run
from ..runs.audit import PREFIX, STARTED

CANCELLED = f"{PREFIX}.cancelled"
PAUSED = f"{PREFIX}.paused"
RESUMED = f"{PREFIX}.resumed"
RETRIED = f"{PREFIX}.retried"
PROMOTED = f"{PREFIX}.promoted"
REVERTED = f"{PREFIX}.reverted"

ACTIONS = {
    STARTED: (_("Start bulk translation run"), _("Started the bulk translation run")),
    CANCELLED: (_("Cancel bulk translation run"), _("Cancelled the bulk translation run")),
    PAUSED: (_("Pause bulk translation run"), _("Paused the bulk translation run")),
    RESUMED: (_("Resume bulk translation run"), _("Resumed the bulk translation run")),
    RETRIED: (_("Retry failed translations"), _("Queued the run's failed units again")),
    PROMOTED: (_("Promote canary"), _("Promoted the canary to a full run")),
    REVERTED: (_("Revert bulk translation run"), _("Started reverting the run's translations")),
}


class TranslatedByRun(LogFormatter):
    """A target written by a run: the entry names the run (its user is who started it)."""

    label = _("Machine-translate")

    def format_message(self, log_entry: Any) -> str:
        data = log_entry.data or {}
        return str(_("Machine-translated into %(locale)s by bulk translation run #%(run)s")) % {
            "locale": data.get("locale", "?"),
            "run": data.get("run", "?"),
        }


def register_run_log_actions(actions: Any) -> None:
    """The ``register_log_actions`` hook."""
    for action, (label, message) in ACTIONS.items():
        actions.register_action(action, label, message)
    actions.register_action(TRANSLATED_ACTION)(TranslatedByRun)


def log_run_action(run: Run, action: str, user: Any, **data: Any) -> None:
    """Record an editor's action on a run (data: plain JSON values, never a secret).

    The entry's label is the run as it is after the action ("Run #4 (Cancelled)"), not as the
    view loaded it before acting."""
    run.refresh_from_db(fields=["status"])
    log(instance=run, action=action, user=user, data=data or None)
