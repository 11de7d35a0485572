"""A run's scope: plain JSON stored on the run, and its validation.

A scope names what a run translates::

    {
        "pages": [{"id": 3, "descendants": true}],   # page subtrees (or single pages)
        "snippets": ["demo.Category"],               # every row of these models
        "settings": ["demo.SiteBranding"],           # translatable or per-site settings
        "objects": [["demo.Category", "7"]],         # an explicit list (bulk actions)
        "exclude_models": ["demo.LandingPage"],
    }
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from django.apps import apps
from django.db import models
from wagtail.models import Locale, Page, TranslatableMixin

from ..errors import ScopeError
from ..objects import find_object
from ..translatable_settings import is_site_setting, is_translatable_generic_setting


@dataclass
class Scope:
    pages: list[dict[str, Any]] = field(default_factory=list)
    snippets: list[str] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)
    objects: list[list[str]] = field(default_factory=list)
    exclude_models: list[str] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Scope:
        unknown = set(data) - {"pages", "snippets", "settings", "objects", "exclude_models"}
        if unknown:
            raise ScopeError(f"Unknown scope keys: {', '.join(sorted(unknown))}.")
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def is_empty(self) -> bool:
        return not (self.pages or self.snippets or self.settings or self.objects)


def resolve_model(label: str) -> type[models.Model]:
    try:
        return apps.get_model(label)
    except (LookupError, ValueError) as err:
        raise ScopeError(f"Unknown model {label!r}: use 'app_label.ModelName'.") from err


def model_label(model: type[models.Model]) -> str:
    return f"{model._meta.app_label}.{model.__name__}"


def check_translatable(model: type[models.Model]) -> None:
    if issubclass(model, TranslatableMixin) or is_site_setting(model):
        return
    raise ScopeError(
        f"{model_label(model)} cannot be translated: it is not a TranslatableMixin model "
        "(nor a per-site setting). Make it translatable or remove it from the scope."
    )


def validate_scope(scope: Scope, source_locale: Locale) -> None:
    """Raise ScopeError with an editor-readable message if the scope cannot be enumerated."""
    if scope.is_empty():
        raise ScopeError("The scope is empty: choose pages, snippets, settings or objects.")
    for label in [*scope.snippets, *scope.settings, *scope.exclude_models]:
        resolve_model(label)
    for label in [*scope.snippets, *scope.settings]:
        check_translatable(resolve_model(label))
    for label in scope.settings:
        model = resolve_model(label)
        if not (is_translatable_generic_setting(model) or is_site_setting(model)):
            raise ScopeError(f"{label} is not a settings model.")
    for root in scope.pages:
        validate_page_root(root, source_locale)
    for item in scope.objects:
        validate_explicit_object(item, source_locale)


def validate_page_root(root: dict[str, Any], source_locale: Locale) -> None:
    page: Any = find_object(Page, root.get("id"))
    if page is None:
        raise ScopeError(f"Page {root.get('id')!r} does not exist.")
    if page.is_root():
        raise ScopeError(
            f"Page {page.pk} is the root of the page tree, not a page of a site: choose a "
            "site's home page (its subtree) or the whole site."
        )
    if page.locale_id != source_locale.pk:
        raise ScopeError(source_locale_hint(page, source_locale))


def source_locale_hint(page: Any, source_locale: Locale) -> str:
    """Refusing a page outside the source locale: say which page to choose instead."""
    message = (
        f"Page {page.pk} ({page.title!r}) is in {page.locale}, not in the source locale "
        f"{source_locale}: nothing was started."
    )
    source_page = page.get_translation_or_none(source_locale)
    if source_page is not None:
        return message + f" Its {source_locale} version is page {source_page.pk}: choose that one."
    return message + f" Choose a page in {source_locale}, or pick {page.locale} as the source."


def validate_explicit_object(item: list[str], source_locale: Locale) -> None:
    if len(item) != 2:
        raise ScopeError(f"Explicit objects are [model label, pk] pairs, got {item!r}.")
    label, pk = item
    model = resolve_model(label)
    check_translatable(model)
    obj = find_object(model, pk)
    if obj is None:
        raise ScopeError(f"{label} {pk} does not exist.")
    if isinstance(obj, TranslatableMixin) and obj.locale_id != source_locale.pk:
        raise ScopeError(f"{label} {pk} is not in the source locale {source_locale}.")
