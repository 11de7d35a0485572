"""Forms of the glossary screens: what cannot apply is refused in words, before it is saved."""

from __future__ import annotations

from django.forms import ValidationError
from django.utils.translation import gettext as _
from wagtail.admin.forms import WagtailAdminModelForm
from wagtail.models import Locale

from ...conf import get_settings


class HouseStyleForm(WagtailAdminModelForm):
    """A house style is for a locale runs translate into, and short enough to send with every
    request of a language-model translator."""

    def clean_locale(self) -> Locale:
        locale = self.cleaned_data["locale"]
        if locale is not None and locale.pk == Locale.get_default().pk:
            raise ValidationError(
                _(
                    "%(locale)s is the source language: runs translate from it, never into it, "
                    "so its house style would never apply."
                )
                % {"locale": locale.get_display_name()}
            )
        return locale

    def clean_instructions(self) -> str:
        text = self.cleaned_data.get("instructions") or ""
        limit = get_settings().HOUSE_STYLE_MAX_CHARACTERS
        if len(text) > limit:
            raise ValidationError(
                _(
                    "The instructions have %(length)d characters; at most %(limit)d are sent "
                    "with each request (HOUSE_STYLE_MAX_CHARACTERS)."
                )
                % {"length": len(text), "limit": limit}
            )
        return text


class GlossaryTermForm(WagtailAdminModelForm):
    """A term's translations are into other locales than its own (the CSV import refuses the
    same)."""

    def is_valid(self) -> bool:
        # The translations' formset is validated after this form's clean(): check it here.
        valid = super().is_valid()
        source = self.cleaned_data.get("source_locale") if valid else None
        formset = self.formsets.get("translations")
        if source is None or formset is None:
            return valid
        own = [
            form
            for form in formset.forms
            if form.cleaned_data.get("target_locale") == source
            and not form.cleaned_data.get("DELETE")
        ]
        for form in own:
            form.add_error(
                "target_locale",
                _("%(locale)s is the term's own language: translate it into another one.")
                % {"locale": source.get_display_name()},
            )
        return not own
