"""The whole site as a scope: every page tree, translatable snippet and setting."""

from __future__ import annotations

from wagtail.contrib.settings.registry import registry
from wagtail.models import Locale, Page, TranslatableMixin
from wagtail.snippets.models import get_snippet_models

from ..translatable_settings import is_site_setting, is_translatable_generic_setting
from .definition import Scope, model_label


def translatable_snippet_labels() -> list[str]:
    return sorted(
        model_label(m)
        for m in get_snippet_models()
        if issubclass(m, TranslatableMixin) and not is_translatable_generic_setting(m)
    )


def translatable_setting_labels() -> list[str]:
    return sorted(
        model_label(m) for m in registry if is_translatable_generic_setting(m) or is_site_setting(m)
    )


def whole_site_scope(source_locale: Locale) -> Scope:
    """Every page tree of the source locale, every translatable snippet and setting."""
    roots = Page.objects.filter(depth=2, locale=source_locale, alias_of__isnull=True)
    return Scope(
        pages=[{"id": pk, "descendants": True} for pk in roots.values_list("pk", flat=True)],
        snippets=translatable_snippet_labels(),
        settings=translatable_setting_labels(),
    )
