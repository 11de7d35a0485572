"""Whether the editor a run acts for may write each object of its scope, by Wagtail's own rules.

A run does only what its editor could do by hand (docs/concepts/permissions.md):

* the **source**: they could edit it (pages: ``PagePermissionTester.can_edit``; snippets: the
  snippet's permission policy, "change" on that instance; settings: the model's change
  permission);
* an existing **target** in the locale: they could edit it (the same tests, on the target);
* a **missing target**: pages need the "add" permission on the nearest page of the target
  locale above it (its parent's translation, else the nearest ancestor's, else the tree's root:
  where it and its missing ancestors are created); snippets need "add"; the source's
  permission never stands for a target that does not exist yet;
* **publishing** (when the run publishes that target: its publish policy, the mirror of a live
  source; a canary never does): "publish" on the existing target, or at that ancestor for a new
  page; snippets with drafts need "publish";
* **overwrite** mode replaces translations made by hand, live ones included: it needs the
  right to edit *and* publish each existing target.

``user`` None is the system (the command line without ``--as-user``, code calling the API
without a user): it may do everything. Page type rules (``parent_page_types``, ``max_count``)
are not checked: a translation copies the source's place in the tree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_permission_codename
from django.contrib.auth.models import AnonymousUser
from django.db import models
from django.db.models import F
from django.utils.translation import gettext as _
from wagtail.admin.utils import get_user_display_name
from wagtail.models import DraftStateMixin, Locale, Page, TranslatableMixin
from wagtail.permission_policies import ModelPermissionPolicy

from ..errors import ErrorCode, UnitSkipped
from ..models import Mode
from ..users import signed_in_user

# Stands for the editor of a run whose user was deleted: no right at all.
NOBODY = AnonymousUser()


def acting_fields(user: Any) -> dict[str, Any]:
    """A run's fields for acting as ``user`` (None: as the system)."""
    return {"acting_user": signed_in_user(user), "acts_as_system": user is None}


def acting_user(run: Any) -> Any:
    """Whose rights a run's writes use: None (the system) or a user (NOBODY once deleted)."""
    if run.acts_as_system:
        return None
    return run.acting_user or NOBODY


def check_unit_permitted(run: Any, source: Any, locale: Locale, *, publish: bool) -> None:
    """Skip (``not_permitted``, with the reason) a unit the run's editor may not write.

    The worker asks when it plans the unit (nothing is sent for it) and again in the
    transaction that writes the target: rights may change while a run goes on, and a new
    page's parent may have been written meanwhile.
    """
    overwrite = run.mode == Mode.OVERWRITE
    refused = refusal(acting_user(run), source, locale, publish=publish, overwrite=overwrite)
    if refused is not None:
        raise UnitSkipped(ErrorCode.NOT_PERMITTED, refused.message)


@dataclass(frozen=True)
class Refusal:
    """Why the user may not write one (object, locale); ``publishing``: only because the run
    would publish it (a draft would be allowed)."""

    message: str
    publishing: bool = False


@dataclass(frozen=True)
class Destination:
    """Where a source object's translation goes in a locale: the existing ``target``, or, for
    a new page, ``parent``: the nearest page of that locale above it."""

    target: Any = None
    parent: Page | None = None


def refusal(
    user: Any, source: Any, locale: Locale, *, publish: bool, overwrite: bool = False
) -> Refusal | None:
    """Why ``user`` may not translate ``source`` into ``locale`` (None: they may)."""
    if user is None:
        return None
    destination = destinations([source], locale)[source.pk]
    return refusal_for(user, source, destination, locale, publish=publish, overwrite=overwrite)


def refusal_for(
    user: Any,
    source: Any,
    destination: Destination,
    locale: Locale,
    *,
    publish: bool,
    overwrite: bool = False,
) -> Refusal | None:
    """:func:`refusal` with the destination already looked up (see :func:`destinations`)."""
    if user is None:
        return None
    words = {"who": who(user), "title": title_of(source), "locale": locale.get_display_name()}
    if not may(user, "change", source):
        return Refusal(
            _(
                "%(who)s may not edit “%(title)s”, the source, so it is not translated: a run "
                "does only what its editor could do by hand."
            )
            % words
        )
    if is_setting(source):
        return None  # a settings row: changing the model's settings is all there is
    target = destination.target
    if target is None:
        return refusal_to_create(user, source, destination, words, publish=publish)
    return refusal_to_change(user, target, words, publish=publish, overwrite=overwrite)


def target_refusal(user: Any, target: Any, locale: Locale, *, publish: bool) -> Refusal | None:
    """Why ``user`` may not edit (``publish``: and publish) this existing translation (None:
    they may); a missing target (None) is refused. The review queue's rule for accepting and
    dismissing."""
    if user is None:
        return None
    if target is None:
        return Refusal(_("Its translation no longer exists."))
    words = {"who": who(user), "locale": locale.get_display_name()}
    return refusal_to_change(user, target, words, publish=publish)


def refusal_to_change(
    user: Any, target: Any, words: dict[str, str], *, publish: bool, overwrite: bool = False
) -> Refusal | None:
    words["target"] = title_of(target)
    if not may(user, "change", target):
        return Refusal(
            _(
                "%(who)s may not edit its %(locale)s translation, “%(target)s”, which is left "
                "as it is."
            )
            % words
        )
    if overwrite and has_drafts(target) and not may(user, "publish", target):
        return Refusal(
            _(
                "%(who)s may not publish its %(locale)s translation, “%(target)s”: overwrite "
                "mode replaces translations made by hand, which needs the right to edit and "
                "publish them. It is left as it is."
            )
            % words
        )
    if publish and has_drafts(target) and not may(user, "publish", target):
        return refused_publish(words)
    return None


def refusal_to_create(
    user: Any, source: Any, destination: Destination, words: dict[str, str], *, publish: bool
) -> Refusal | None:
    parent = destination.parent
    if isinstance(source, Page):
        if parent is None or not may_below(user, "add", parent):
            words["parent"] = title_of(parent) if parent and parent.depth > 1 else _("the root")
            return Refusal(
                _(
                    "%(who)s may not add pages under “%(parent)s” in %(locale)s, so its "
                    "%(locale)s translation is not created."
                )
                % words
            )
        if publish and not may_below(user, "publish", parent):
            return refused_publish(words)
        return None
    if not policy_of(type(source)).user_has_permission(user, "add"):
        words["things"] = str(type(source)._meta.verbose_name_plural)
        return Refusal(
            _("%(who)s may not add %(things)s, so its %(locale)s translation is not created.")
            % words
        )
    if (
        publish
        and has_drafts(source)
        and not policy_of(type(source)).user_has_permission(user, "publish")
    ):
        return refused_publish(words)
    return None


def refused_publish(words: dict[str, str]) -> Refusal:
    return Refusal(
        _(
            "%(who)s may not publish its %(locale)s translation, and this run publishes it, so "
            "nothing is written. Translate it as a draft, or ask an editor who may publish it."
        )
        % words,
        publishing=True,
    )


def may(user: Any, action: str, instance: Any) -> bool:
    """Wagtail's own answer: may ``user`` do ``action`` ("change", "publish") to ``instance``."""
    if isinstance(instance, Page):
        tester = instance.permissions_for_user(user)
        return bool(tester.can_edit() if action == "change" else tester.can_publish())
    model = type(instance)
    if is_setting(instance):
        opts = model._meta
        return user.has_perm(f"{opts.app_label}.{get_permission_codename('change', opts)}")
    return bool(policy_of(model).user_has_permission_for_instance(user, action, instance))


def may_below(user: Any, action: str, parent: Page) -> bool:
    """The permission ``action`` ("add", "publish") at ``parent``, which its subpages inherit:
    what Wagtail's ``can_add_subpage`` and ``can_publish_subpage`` ask, without their page type
    rules."""
    if not user.is_active:
        return False
    if user.is_superuser:
        return True
    return action in parent.permissions_for_user(user).permissions


def policy_of(model: type[models.Model]) -> Any:
    """The snippet's permission policy (its viewset's, which a site may customise)."""
    viewset = getattr(model, "snippet_viewset", None)
    return viewset.permission_policy if viewset is not None else ModelPermissionPolicy(model)


def is_setting(instance: Any) -> bool:
    from wagtail.contrib.settings.models import BaseGenericSetting, BaseSiteSetting

    return isinstance(instance, (BaseGenericSetting, BaseSiteSetting))


def has_drafts(instance: Any) -> bool:
    return isinstance(instance, DraftStateMixin)


def who(user: Any) -> str:
    if user is NOBODY:
        return _("The editor this run acted for (since deleted)")
    return get_user_display_name(user) or str(user)


def title_of(instance: Any) -> str:
    return str(getattr(instance, "title", None) or instance)


def destinations(sources: Iterable[Any], locale: Locale) -> dict[Any, Destination]:
    """{source pk: its destination in ``locale``} for objects of one model, in a few queries."""
    sources = list(sources)
    if not sources or not isinstance(sources[0], TranslatableMixin) or is_setting(sources[0]):
        return {source.pk: Destination() for source in sources}
    if isinstance(sources[0], Page):
        return page_destinations(sources, locale)
    model = type(sources[0])
    keys = [source.translation_key for source in sources]
    found = model._default_manager.filter(translation_key__in=keys, locale=locale)
    targets = {target.translation_key: target for target in found}
    return {source.pk: Destination(targets.get(source.translation_key)) for source in sources}


def page_destinations(sources: list[Page], locale: Locale) -> dict[Any, Destination]:
    keys = {source.translation_key for source in sources}
    targets = in_locale(keys, locale)
    result = {
        s.pk: Destination(targets[s.translation_key])
        for s in sources
        if s.translation_key in targets
    }
    missing = [source for source in sources if source.pk not in result]
    above = {path for source in missing for path in ancestor_paths(source)}
    ancestors = dict(Page.objects.filter(path__in=above).values_list("path", "translation_key"))
    translated = in_locale(set(ancestors.values()), locale)
    root = Page.get_first_root_node() if missing else None
    for source in missing:
        parent = next(
            (
                translated[ancestors[path]]
                for path in reversed(ancestor_paths(source))
                if ancestors.get(path) in translated
            ),
            root,
        )
        result[source.pk] = Destination(parent=parent)
    return result


def in_locale(keys: set[Any], locale: Locale) -> dict[Any, Page]:
    """{translation key: its page in ``locale``}, a real page rather than an alias if both."""
    pages = Page.objects.filter(translation_key__in=keys, locale=locale)
    pages = pages.order_by(F("alias_of_id").desc(nulls_last=True))
    return {page.translation_key: page for page in pages}  # aliases first: real pages win


def ancestor_paths(page: Page) -> list[str]:
    """Paths of the page's ancestors below the root, from the top down."""
    step = Page.steplen
    return [page.path[: step * depth] for depth in range(2, len(page.path) // step)]
