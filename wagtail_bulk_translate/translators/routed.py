"""wagtail-localize's "Machine translate" button through the plugin's routing.

Set ``WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {"CLASS":
"wagtail_bulk_translate.translators.routed.RoutedTranslator"}`` and the editor's per-page
button translates each locale with the profile ``LOCALE_TRANSLATORS`` routes it to, as a run
would (its glossary, house style and prompt included).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy as _
from wagtail_localize.machine_translators.base import BaseMachineTranslator

from ..errors import RunConfigurationError
from .base import BulkTranslator
from .pins import choose_pins

if TYPE_CHECKING:
    from wagtail.models import Locale
    from wagtail_localize.strings import StringValue


class RoutedTranslator(BaseMachineTranslator):
    display_name = _("Bulk translate (the locale's translator profile)")

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options or {})

    def routed(self, source_locale: Locale, target_locale: Locale) -> BulkTranslator | None:
        """The translator of the profile the routing gives the locale (None: no profile can)."""
        try:
            pin = choose_pins(source_locale, [target_locale])[target_locale.pk]
        except RunConfigurationError:
            return None
        return pin.build()

    def can_translate(self, source_locale: Locale, target_locale: Locale) -> bool:
        return self.routed(source_locale, target_locale) is not None

    def translate(
        self, source_locale: Locale, target_locale: Locale, strings: Iterable[StringValue]
    ) -> dict[StringValue, StringValue]:
        translator = self.routed(source_locale, target_locale)
        if translator is None:
            raise RunConfigurationError(
                f"No translator profile can translate from {source_locale.language_code} into "
                f"{target_locale.language_code}."
            )
        return translator.translate(source_locale, target_locale, strings)
