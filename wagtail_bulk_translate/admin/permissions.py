"""Who may do what in the admin.

One permission, ``wagtail_bulk_translate.manage_runs``, gates every screen and endpoint; on top
of it, nobody may start a run over content they could not edit by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import apps
from django.contrib.auth import get_permission_codename
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import QuerySet
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from wagtail.models import Locale, Page
from wagtail.permission_policies import ModelPermissionPolicy
from wagtail.permission_policies.pages import PagePermissionPolicy

from ..api import Scope
from ..models import Run

MANAGE_RUNS = "manage_runs"
MANAGE_RUNS_PERMISSION = f"wagtail_bulk_translate.{MANAGE_RUNS}"
# Runs are started by the wizard and changed by their actions, never by generic edit/delete.
FORBIDDEN_ACTIONS = {"change", "delete"}
NAMES_SHOWN = 10


class RunPermissionPolicy(ModelPermissionPolicy):
    """Every action on runs (list, inspect, add...) needs ``manage_runs``; generic change and
    delete views are never allowed, whoever asks."""

    def _get_permission_codename(self, action: str) -> str:
        return MANAGE_RUNS

    def user_has_permission(self, user: Any, action: str) -> bool:
        return action not in FORBIDDEN_ACTIONS and user.has_perm(MANAGE_RUNS_PERMISSION)

    def user_has_any_permission(self, user: Any, actions: Iterable[str]) -> bool:
        return any(self.user_has_permission(user, action) for action in actions)


run_permission_policy = RunPermissionPolicy(Run)


def register_run_permission_policy() -> None:
    register_policy(Run, run_permission_policy)


def register_policy(model: Any, policy: Any) -> None:
    """Register a model's policy where Wagtail 8 looks it up (menu items, generic views)."""
    try:
        from wagtail.permissions import register_permission_policy
    except ImportError:  # Wagtail 7.x takes it from the viewset and views only
        return
    register_permission_policy(model, policy, exact_class=True)


def can_manage_runs(user: Any) -> bool:
    return bool(user and user.is_active and user.has_perm(MANAGE_RUNS_PERMISSION))


class ScopeNotAllowed(PermissionDenied):
    """The user may not translate part of a scope; the message names what and says why."""


def check_user_can_translate(
    user: Any,
    scope: Scope | dict[str, Any],
    source_locale: Locale,
    *,
    run_action: str | None = None,
) -> None:
    """Refuse (ScopeNotAllowed) a run over pages or models the user could not edit by hand.

    Called before a run starts, by the new-run wizard and the bulk actions, and before an
    action on an existing run that writes content (``run_action``: "revert", "retry", ...;
    the message then speaks of that action, there is no selection to change). Counting is
    set-based (a few queries per page root), so a subtree of 10,000 pages costs no more.
    """
    scope = scope if isinstance(scope, Scope) else Scope.from_json(scope)
    names = uneditable_pages(user, scope, source_locale)
    if names:
        raise ScopeNotAllowed(refusal(_("these pages"), run_action) % {"names": names})
    models = uneditable_models(user, scope)
    if models:
        what = get_text_list(models, _("and"))
        raise ScopeNotAllowed(refusal(what, run_action) % {"names": ""})


# One whole sentence per action that writes content: a translator sees it whole.
ACTION_REFUSALS = {
    "revert": gettext_lazy(
        "You cannot edit %(what)s, so you cannot revert this run, which changes their "
        "translations%(colon)s. Ask an administrator for edit permission, or an editor who "
        "can edit them to revert it."
    ),
    "resume": gettext_lazy(
        "You cannot edit %(what)s, so you cannot resume this run, which changes their "
        "translations%(colon)s. Ask an administrator for edit permission, or an editor who "
        "can edit them to resume it."
    ),
    "retry": gettext_lazy(
        "You cannot edit %(what)s, so you cannot retry this run, which changes their "
        "translations%(colon)s. Ask an administrator for edit permission, or an editor who "
        "can edit them to retry it."
    ),
    "promote": gettext_lazy(
        "You cannot edit %(what)s, so you cannot promote this canary, which changes their "
        "translations%(colon)s. Ask an administrator for edit permission, or an editor who "
        "can edit them to promote it."
    ),
}
ANY_ACTION_REFUSAL = gettext_lazy(
    "You cannot edit %(what)s, so you cannot act on this run, which changes their "
    "translations%(colon)s. Ask an administrator for edit permission, or an editor who can "
    "edit them to do it."
)


def refusal(what: str, run_action: str | None) -> str:
    """The refusal's wording; ``%(names)s`` is filled with the titles of the pages (if any)."""
    if run_action is None:
        text = _(
            "You cannot edit %(what)s, so you cannot translate them%(colon)s. Remove them from "
            "the selection, or ask an administrator for edit permission."
        )
    else:
        text = str(ACTION_REFUSALS.get(run_action, ANY_ACTION_REFUSAL))
    colon = ": %(names)s" if what == _("these pages") else ""
    return text % {"what": what, "colon": colon}


def uneditable_pages(user: Any, scope: Scope, source_locale: Locale) -> str:
    """Titles of the scoped pages the user cannot edit ("" when there are none)."""
    policy = PagePermissionPolicy()
    editable = policy.instances_user_has_permission_for(user, "change").values("pk")
    refused = Page.objects.none()
    for root in scope.pages:
        page = Page.objects.filter(pk=root.get("id")).first()
        if page is None:
            continue  # the API reports a missing page with a clearer message
        pages = (
            Page.objects.descendant_of(page, inclusive=True).filter(locale=source_locale)
            if root.get("descendants", True)
            else Page.objects.filter(pk=page.pk)
        )
        refused |= pages.exclude(pk__in=editable)
    explicit_pages = [pk for label, pk in scope.objects if is_page_label(label)]
    if explicit_pages:
        refused |= Page.objects.filter(pk__in=explicit_pages).exclude(pk__in=editable)
    return summarise_titles(refused.order_by("path"))


def summarise_titles(pages: QuerySet[Page]) -> str:
    titles = list(pages.values_list("title", flat=True)[: NAMES_SHOWN + 1])
    if not titles:
        return ""
    if len(titles) <= NAMES_SHOWN:
        return ", ".join(f"“{title}”" for title in titles)
    more = pages.count() - NAMES_SHOWN
    shown = ", ".join(f"“{title}”" for title in titles[:NAMES_SHOWN])
    return _("%(shown)s and %(more)d more") % {"shown": shown, "more": more}


def is_page_label(label: str) -> bool:
    model = find_model(label)
    return model is not None and issubclass(model, Page)


def find_model(label: str) -> type[models.Model] | None:
    try:
        return apps.get_model(label)
    except (LookupError, ValueError):
        return None


def uneditable_models(user: Any, scope: Scope) -> list[str]:
    """Snippet and settings models in the scope the user has no change permission on."""
    labels = [*scope.snippets, *scope.settings]
    labels += [label for label, _pk in scope.objects if not is_page_label(label)]
    refused = []
    for label in dict.fromkeys(labels):
        model = find_model(label)
        if model is None:
            continue  # the API reports an unknown model with a clearer message
        codename = get_permission_codename("change", model._meta)
        if not user.has_perm(f"{model._meta.app_label}.{codename}"):
            refused.append(str(model._meta.verbose_name_plural))
    return refused


def can_edit_object(user: Any, instance: models.Model | None, *, publish: bool = False) -> bool:
    """Whether ``user`` could edit (and, with ``publish``, publish) this object by hand: the
    review queue's per-object check before an editor accepts, dismisses or re-translates."""
    if instance is None:
        return False
    if isinstance(instance, Page):
        permissions = instance.permissions_for_user(user)
        return bool(permissions.can_edit() and (not publish or permissions.can_publish()))
    opts = instance._meta
    actions = ["change", "publish"] if publish and hasattr(instance, "live") else ["change"]
    return all(
        user.has_perm(f"{opts.app_label}.{get_permission_codename(action, opts)}")
        for action in actions
    )
