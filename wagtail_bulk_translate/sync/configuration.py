"""What is synced: which configurations cover an object, from which locale, into which locales.

A page is covered by a site's configuration when it lies in the configured tree (the site's
root page, or the configured subtree) in that tree's locale; a snippet when its model is listed
and it is in the locale of the site's root page. Translations live in other locales, so a run
writing them never records a change of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wagtail.models import Page

from ..conf import get_settings
from ..models import SyncConfiguration
from ..scope.definition import model_label


@dataclass(frozen=True)
class Coverage:
    """The enabled configurations covering one object, and its source locale."""

    configurations: list[SyncConfiguration]
    source_locale_id: int

    def target_locale_ids(self, *, include_paused: bool = False) -> set[int]:
        return {
            locale.pk
            for configuration in self.configurations
            if include_paused or not configuration.paused
            for locale in configuration.target_locales.all()
            if locale.pk != self.source_locale_id
        }

    @property
    def all_paused(self) -> bool:
        return all(configuration.paused for configuration in self.configurations)


def enabled_configurations(*, with_locales: bool = False) -> list[SyncConfiguration]:
    """One query (two ``with_locales``: the receivers of a publish need no locale)."""
    configurations = SyncConfiguration.objects.filter(enabled=True).select_related(
        "site__root_page", "root_page"
    )
    if with_locales:
        configurations = configurations.prefetch_related("target_locales")
    return list(configurations)


def tree_root(configuration: SyncConfiguration) -> Page:
    return configuration.root_page or configuration.site.root_page


def covers(configuration: SyncConfiguration, instance: Any) -> bool:
    if isinstance(instance, Page):
        root = tree_root(configuration)
        return instance.locale_id == root.locale_id and instance.path.startswith(root.path)
    if model_label(type(instance)) not in (configuration.snippet_models or []):
        return False
    return getattr(instance, "locale_id", None) == configuration.site.root_page.locale_id


def coverage(
    instance: Any, configurations: list[SyncConfiguration] | None = None
) -> Coverage | None:
    """The configurations covering ``instance``, or None when nothing syncs it."""
    if not get_settings().SYNC_ENABLED:
        return None
    if configurations is None:
        configurations = enabled_configurations()
    found = [c for c in configurations if covers(c, instance)]
    if not found:
        return None
    return Coverage(found, source_locale_id=instance.locale_id)
