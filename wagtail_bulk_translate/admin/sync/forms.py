"""The form of a site's automatic sync: its tree, locales and snippet models, checked against
the site so a configuration can always be dispatched."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from wagtail.admin.forms import WagtailAdminModelForm
from wagtail.models import Locale

from ... import api


def snippet_choices() -> list[tuple[str, str]]:
    return [(label, label) for label in api.translatable_snippet_labels()]


class SyncConfigurationForm(WagtailAdminModelForm):
    snippet_models = forms.MultipleChoiceField(
        label=_("Snippet models"),
        choices=snippet_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Saving one of these snippets in the site's locale translates it too."),
    )
    target_locales = forms.ModelMultipleChoiceField(
        label=_("Target locales"),
        queryset=Locale.objects.all(),
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Publishing a page of the tree translates it into these locales."),
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        site, root = cleaned.get("site"), cleaned.get("root_page")
        if site is None:
            return cleaned
        home = site.root_page
        if (
            root is not None
            and (root.locale_id != home.locale_id or not root.is_descendant_of(home))
            and root.pk != home.pk
        ):
            self.add_error(
                "root_page",
                _("Choose a page of %(site)s in its locale (%(locale)s), or leave it empty.")
                % {"site": site, "locale": home.locale},
            )
        source = [loc for loc in cleaned.get("target_locales") or [] if loc.pk == home.locale_id]
        if source:
            self.add_error(
                "target_locales",
                _("%(locale)s is the site's own locale, the source: it cannot be a target.")
                % {"locale": source[0]},
            )
        return cleaned
