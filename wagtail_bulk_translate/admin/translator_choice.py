"""The run form's choice of translator profile, for the run or per locale, among the profiles a
site owner lets editors choose (``EDITOR_TRANSLATORS``; none: the routing decides alone)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale

from ..conf import get_settings
from ..translators.profiles import configured_profiles

RUN_FIELD = "translator"
LOCALE_FIELD_PREFIX = "translator__"
BY_ROUTING = ""


def editor_profiles() -> list[tuple[str, str]]:
    """(name, label) of the profiles editors may choose, as configured (unknown names are a
    system check's error, left out here)."""
    profiles = configured_profiles()
    return [
        (name, profiles[name].label)
        for name in get_settings().EDITOR_TRANSLATORS
        if name in profiles
    ]


def add_translator_fields(form: forms.BaseForm) -> None:
    """A profile for the whole run, and one per locale, when editors may choose any."""
    choices = editor_profiles()
    if not choices:
        return
    form.fields[RUN_FIELD] = forms.ChoiceField(
        label=_("Translator"),
        required=False,
        choices=[(BY_ROUTING, _("The site's choice for each locale")), *choices],
        help_text=_(
            "The translator profile for every locale of this run; a choice for a locale below "
            "takes precedence."
        ),
    )
    for locale in Locale.objects.all():
        form.fields[LOCALE_FIELD_PREFIX + locale.language_code] = forms.ChoiceField(
            label=_("Translator for %(locale)s") % {"locale": locale.get_display_name()},
            required=False,
            choices=[(BY_ROUTING, _("As for the run")), *choices],
        )


def locale_translator_fields(form: forms.BaseForm) -> list[forms.BoundField]:
    return [form[name] for name in form.fields if name.startswith(LOCALE_FIELD_PREFIX)]


def translator_choice(cleaned_data: dict[str, Any]) -> dict[str, str]:
    """{locale code or "*": profile name} as ``api.start_run`` takes it."""
    choice = {}
    if cleaned_data.get(RUN_FIELD):
        choice["*"] = cleaned_data[RUN_FIELD]
    targets = set(cleaned_data.get("target_locales") or ())
    for name, value in cleaned_data.items():
        code = name.removeprefix(LOCALE_FIELD_PREFIX)
        if name.startswith(LOCALE_FIELD_PREFIX) and value and code in targets:
            choice[code] = value
    return choice


class TranslatorChoiceMixin(forms.Form):
    """The run form's translator fields (added in ``__init__`` by :func:`add_translator_fields`)."""

    @property
    def offers_translator_choice(self) -> bool:
        return RUN_FIELD in self.fields

    def locale_translator_fields(self) -> list[forms.BoundField]:
        return locale_translator_fields(self)
