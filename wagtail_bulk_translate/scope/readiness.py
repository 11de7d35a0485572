"""What a scope holds that a run would not translate, and what it holds in draft.

Both are reported by preflight and the run summary, so nothing is left out without a word:
models in scope that cannot be translated (with the reason and what to do), and how many
objects have unpublished changes (the run translates the live or the draft content).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from django.contrib.contenttypes.models import ContentType
from wagtail.contrib.settings.registry import registry
from wagtail.models import DraftStateMixin, Locale, TranslatableMixin
from wagtail.snippets.models import get_snippet_models

from ..translatable_settings import (
    is_site_setting,
    is_translatable_generic_setting,
    site_locale_map,
)
from .definition import Scope, model_label, resolve_model
from .whole_site import translatable_setting_labels, translatable_snippet_labels

GENERIC_SETTING_FIX = (
    "subclass wagtail_bulk_translate.translatable_settings.TranslatableGenericSetting "
    "(one row per locale), or make it a per-site setting and map sites to locales"
)
SITE_SETTING_FIX = (
    "map a site to each target locale (WAGTAIL_BULK_TRANSLATE['SITE_LOCALES'] or each "
    "site's root page locale), or make it a TranslatableGenericSetting"
)
SNIPPET_FIX = "add wagtail.models.TranslatableMixin to the model (and a migration)"
CHUNK = 500


@dataclass(frozen=True)
class Untranslatable:
    model: str
    reason: str
    fix: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def covers_whole_site(scope: Scope) -> bool:
    """Whether the scope asks for every translatable snippet and setting (as ``--all`` does)."""
    return (
        bool(scope.pages)
        and set(translatable_snippet_labels()) <= set(scope.snippets)
        and set(translatable_setting_labels()) <= set(scope.settings)
    )


def untranslatable_in_scope(scope: Scope, source: Locale) -> list[Untranslatable]:
    """Models in the scope that the run would leave out, each with the reason and the fix."""
    found: dict[str, Untranslatable] = {}
    if covers_whole_site(scope):
        for model in registry:
            if not (is_translatable_generic_setting(model) or is_site_setting(model)):
                label = model_label(model)
                found[label] = Untranslatable(
                    label, "a generic setting without TranslatableMixin", GENERIC_SETTING_FIX
                )
        for model in get_snippet_models():
            if not issubclass(model, TranslatableMixin):
                label = model_label(model)
                found[label] = Untranslatable(
                    label, "a snippet without TranslatableMixin", SNIPPET_FIX
                )
    site_labels = [*scope.settings, *(label for label, _pk in scope.objects)]
    if not serves_other_locales(source):
        for label in site_labels:
            if label not in found and is_site_setting(resolve_model(label)):
                found[label] = Untranslatable(
                    label,
                    f"a per-site setting, and no site serves a locale other than "
                    f"{source.language_code}",
                    SITE_SETTING_FIX,
                )
    for label in scope.exclude_models:
        found.pop(label, None)
    return [found[label] for label in sorted(found)]


def serves_other_locales(source: Locale) -> bool:
    return any(locale.pk != source.pk for locale in site_locale_map().values())


def count_unpublished(objects: Iterable[tuple[int, str]]) -> int:
    """How many of these (content type id, pk) objects have unpublished changes."""
    by_type: dict[int, list[str]] = defaultdict(list)
    for content_type_id, pk in objects:
        by_type[content_type_id].append(pk)
    total = 0
    for content_type_id, pks in by_type.items():
        model = ContentType.objects.get_for_id(content_type_id).model_class()
        if model is None or not issubclass(model, DraftStateMixin):
            continue
        for start in range(0, len(pks), CHUNK):
            chunk = pks[start : start + CHUNK]
            total += model._default_manager.filter(
                pk__in=chunk, has_unpublished_changes=True
            ).count()
    return total
