"""Audit log actions of the glossary (adding, editing and deleting a term or a house style
are logged by Wagtail's generic views as ``wagtail.create`` / ``wagtail.edit`` /
``wagtail.delete``)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from wagtail.log_actions import log

PREFIX = "wagtail_bulk_translate.glossary"
IMPORTED = f"{PREFIX}.imported"
SYNC_REQUESTED = f"{PREFIX}.sync_requested"

ACTIONS = {
    IMPORTED: (_("Import glossary CSV"), _("Imported from a glossary CSV file")),
    SYNC_REQUESTED: (_("Sync DeepL glossary"), _("Asked for the DeepL glossaries to be synced")),
}


def register_glossary_log_actions(actions: Any) -> None:
    """Part of the ``register_log_actions`` hook."""
    for action, (label, message) in ACTIONS.items():
        actions.register_action(action, label, message)


def log_glossary_action(instance: Any, action: str, user: Any, **data: Any) -> None:
    log(instance=instance, action=action, user=user, data=data or None)
