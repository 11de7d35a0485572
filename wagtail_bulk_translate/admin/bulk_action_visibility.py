"""Bulk actions listed only to the users who may use them.

Wagtail's listings offer every registered bulk action to every user: its
``bulk_action_choices`` tag has no permission hook (Wagtail 7.4 to 8.0), so "Translate…" was
shown in the page explorer's "More" menu and in snippet listings to editors without the
plugin's permission, and led them to a 403. At start-up the tag is wrapped once: buttons of
actions whose ``is_shown_to(user)`` says no are left out.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from wagtail.admin.templatetags import wagtailadmin_tags
from wagtail.admin.views.bulk_action.registry import bulk_action_registry
from wagtail.admin.widgets.button import Button, ButtonWithDropdown

TAG = "bulk_action_choices"
wrapped = template.Library()


def install() -> None:
    """Replace Wagtail's tag by the filtering one (idempotent)."""
    wagtailadmin_tags.register.tags[TAG] = wrapped.tags[TAG]


@wrapped.inclusion_tag("wagtailadmin/shared/buttons.html", takes_context=True, name=TAG)
def bulk_action_choices(context: template.Context, app_label: str, model_name: str) -> dict:
    result = wagtailadmin_tags.bulk_action_choices(context, app_label, model_name)
    user = getattr(context.get("request"), "user", None)
    hidden = hidden_action_urls(user, app_label, model_name)
    if hidden:
        result["buttons"] = without_urls(result["buttons"], hidden)
    return result


def hidden_action_urls(user: Any, app_label: str, model_name: str) -> set[str]:
    return {
        reverse("wagtail_bulk_action", args=[app_label, model_name, action.action_type])
        for action in bulk_action_registry.get_bulk_actions_for_model(app_label, model_name)
        if hasattr(action, "is_shown_to") and not action.is_shown_to(user)
    }


def without_urls(buttons: list[Button], hidden: set[str]) -> list[Button]:
    kept = []
    for button in buttons:
        if isinstance(button, ButtonWithDropdown):
            button.dropdown_buttons = without_urls(button.dropdown_buttons, hidden)
            if not button.dropdown_buttons:
                continue  # a "More" menu with nothing in it
        elif getattr(button, "url", None) in hidden:
            continue
        kept.append(button)
    return kept
