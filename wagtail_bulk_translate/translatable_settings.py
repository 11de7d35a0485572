"""Settings that can be translated.

Two shapes are supported:

* :class:`TranslatableGenericSetting`: a generic setting with one row per locale. ``load()``
  returns the row of the active locale (falling back to the default locale's row), so
  ``{{ settings.app.MySetting.field }}`` shows translated values under language-prefixed URLs.
* Site settings (``BaseSiteSetting``) on sites that each serve one locale: the row of the site
  serving the source locale is translated into the row of the site serving the target locale.
  Which locale a site serves comes from ``WAGTAIL_BULK_TRANSLATE["SITE_LOCALES"]`` (keys are
  hostnames or site ids) or, by default, from the locale of the site's root page.
"""

from __future__ import annotations

from django.db import models
from wagtail.contrib.settings.models import BaseGenericSetting, BaseSiteSetting
from wagtail.models import Locale, Site, TranslatableMixin

from .conf import get_settings


class TranslatableGenericSetting(TranslatableMixin, BaseGenericSetting):
    """A generic setting with one row per locale; ``load()`` is locale-aware."""

    class Meta(TranslatableMixin.Meta):
        abstract = True

    @classmethod
    def _get_or_create(cls) -> TranslatableGenericSetting:
        active = Locale.get_active()
        row = cls.base_queryset().filter(locale=active).first()
        if row is not None:
            return row
        default = Locale.get_default()
        row = cls.base_queryset().filter(locale=default).first()
        # Only the default locale's row is ever created implicitly: an empty row in another
        # locale would hide the default content until someone translated it.
        return row or cls.objects.create(locale=default)


def is_translatable_generic_setting(model: type[models.Model]) -> bool:
    return issubclass(model, BaseGenericSetting) and issubclass(model, TranslatableMixin)


def is_site_setting(model: type[models.Model]) -> bool:
    return issubclass(model, BaseSiteSetting)


def site_locale_map() -> dict[int, Locale]:
    """Locale served by each site, by site id (explicit mapping first, then the root page)."""
    overrides = get_settings().SITE_LOCALES
    locales = {locale.language_code: locale for locale in Locale.objects.all()}
    result: dict[int, Locale] = {}
    for site in Site.objects.select_related("root_page__locale"):
        code = overrides.get(site.hostname) or overrides.get(str(site.pk))
        result[site.pk] = locales.get(code) if code else site.root_page.locale
    return {site_id: locale for site_id, locale in result.items() if locale is not None}


def sites_serving(locale: Locale) -> list[int]:
    return [site_id for site_id, served in site_locale_map().items() if served.pk == locale.pk]
