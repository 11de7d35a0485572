"""Audit log actions of automatic sync (adding, editing and deleting a site's configuration are
logged by Wagtail's generic views as ``wagtail.create`` / ``wagtail.edit`` / ``wagtail.delete``)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from ...sync.switch import PAUSED, RESUMED, SITE_PAUSED, SITE_RESUMED

ACTIONS = {
    PAUSED: (_("Pause automatic translation"), _("Paused all automatic translation")),
    RESUMED: (_("Resume automatic translation"), _("Resumed all automatic translation")),
    SITE_PAUSED: (_("Pause a site's automatic sync"), _("Paused this site's automatic sync")),
    SITE_RESUMED: (_("Resume a site's automatic sync"), _("Resumed this site's automatic sync")),
}


def register_sync_log_actions(actions: Any) -> None:
    """Part of the ``register_log_actions`` hook."""
    for action, (label, message) in ACTIONS.items():
        actions.register_action(action, label, message)
