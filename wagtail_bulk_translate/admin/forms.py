"""Forms of the admin. ``RunOptionsForm`` holds the options every way of starting a run shares.

The new-run wizard and the page / snippet bulk actions subclass ``RunOptionsForm`` and add their
scope fields; ``run_options()`` gives the keyword arguments of ``api.start_run`` /
``api.preflight`` for everything but the scope and the source locale.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol, cast

from django import forms
from django.apps import apps
from django.core.exceptions import ValidationError
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from wagtail.admin.widgets import AdminPageChooser
from wagtail.models import Locale, Page, TranslatableMixin, get_page_models

from ..api import (
    BulkTranslateError,
    Scope,
    get_settings,
    translatable_setting_labels,
    translatable_snippet_labels,
    whole_site_scope,
)
from ..models import ContentSource, Mode, PublishPolicy
from ..scope.definition import model_label
from .translator_choice import TranslatorChoiceMixin, add_translator_fields, translator_choice

ALL_LOCALES = "all"
DEFAULT_CANARY_SIZE = 20

MODE_HELP = _(
    "Changed: only what changed since its last machine translation, or was never translated "
    "(cheapest). Refresh: re-translate every machine translation, keeping manual ones. "
    "Overwrite: re-translate everything, manual translations included."
)
OVERWRITE_WARNING = _(
    "I understand that overwrite mode replaces manual translations, and translated pages "
    "edited by hand outside the translation workflow, with new machine translations."
)


class CostEstimate(Protocol):
    """What the cost confirmation reads: a Preflight, or the signed summary of one."""

    @property
    def estimated_cost(self) -> Decimal: ...

    @property
    def currency(self) -> str: ...


def choice_field(form: forms.BaseForm, name: str) -> forms.ChoiceField:
    """A choice field of the form, to set its choices (``form.fields`` only says Field)."""
    return cast(forms.ChoiceField, form.fields[name])


def field_choices(form: forms.BaseForm, name: str) -> list[tuple[Any, Any]]:
    """A choice field's (value, label) pairs: Django normalises the choices set to a list
    (the stubs type the attribute as every input it accepts)."""
    return cast(list[tuple[Any, Any]], choice_field(form, name).choices)


def locale_choices() -> list[tuple[str, str]]:
    return [(locale.language_code, locale.get_display_name()) for locale in Locale.objects.all()]


class RunOptionsForm(TranslatorChoiceMixin, forms.Form):
    """Target locales, mode (with the overwrite confirmation), publish policy, content source,
    canary, and the cost confirmation the preflight step may ask for.

    Subclasses provide the source locale: either a ``source_locale`` form field, or the
    ``source_locale`` keyword argument (bulk actions know it from the selected objects).
    """

    target_locales = forms.MultipleChoiceField(
        label=_("Target locales"),
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "The locales to translate into. 'All locales' means every locale of the site except "
            "the source."
        ),
        error_messages={"required": _("Choose at least one target locale, or 'All locales'.")},
    )
    mode = forms.ChoiceField(
        label=_("Mode"),
        choices=Mode.choices,
        initial=Mode.CHANGED,
        widget=forms.RadioSelect,
        help_text=MODE_HELP,
    )
    confirm_overwrite = forms.BooleanField(
        label=_("Replace manual translations"),
        required=False,
        help_text=OVERWRITE_WARNING,
    )
    publish_policy = forms.ChoiceField(
        label=_("Publishing"),
        choices=PublishPolicy.choices,
        initial=PublishPolicy.DRAFT,
        widget=forms.RadioSelect,
        help_text=_(
            "Drafts let you review translations before they go live. Mirror publishes a "
            "translation only where the source page is live. A canary always saves drafts."
        ),
    )
    content_source = forms.ChoiceField(
        label=_("Translate"),
        choices=ContentSource.choices,
        initial=ContentSource.LIVE,
        widget=forms.RadioSelect,
        help_text=_(
            "Live: what visitors see now. Latest draft: include unpublished changes to the source."
        ),
    )
    use_canary = forms.BooleanField(
        label=_("Start with a canary"),
        required=False,
        initial=True,
        help_text=_(
            "Translate a small sample first, as drafts, so you can review it before paying for "
            "the whole run. You then promote the canary to the full run."
        ),
    )
    canary_size = forms.IntegerField(
        label=_("Canary size"),
        required=False,
        min_value=1,
        max_value=1000,
        initial=DEFAULT_CANARY_SIZE,
        help_text=_(
            "How many (object, locale) pairs the canary translates. Every content type and "
            "locale is represented before any gets a second pick."
        ),
    )
    confirm_cost = forms.BooleanField(
        label=_("I accept the estimated cost"),
        required=False,
        help_text=_("Asked when the estimate is above the configured threshold."),
    )

    def __init__(self, *args: Any, source_locale: Locale | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fixed_source_locale = source_locale
        choice_field(self, "target_locales").choices = [
            (ALL_LOCALES, _("All locales")),
            *locale_choices(),
        ]
        add_translator_fields(self)

    def get_source_locale(self) -> Locale | None:
        """The run's source locale once cleaned (a field of a subclass, or fixed at init)."""
        return self.cleaned_data.get("source_locale") or self.fixed_source_locale

    def clean(self) -> dict[str, Any]:
        super().clean()  # Form.clean returns self.cleaned_data (typed as maybe None)
        cleaned = self.cleaned_data
        self.clean_targets_against_source()
        if cleaned.get("mode") == Mode.OVERWRITE and not cleaned.get("confirm_overwrite"):
            self.add_error(
                "confirm_overwrite",
                _("Overwrite replaces manual translations: tick this box, or choose another mode."),
            )
        canary_missing = cleaned.get("use_canary") and not cleaned.get("canary_size")
        if canary_missing and "canary_size" not in self.errors:
            self.add_error(
                "canary_size", _("Give the canary a size of at least 1, or untick the canary.")
            )
        return cleaned

    def clean_targets_against_source(self) -> None:
        codes = self.cleaned_data.get("target_locales")
        source = self.get_source_locale()
        if not codes or source is None:
            return
        if ALL_LOCALES in codes:
            codes = [code for code, _label in locale_choices() if code != source.language_code]
            if not codes:
                self.add_error("target_locales", _("The site has no other locale to translate to."))
                return
        elif source.language_code in codes:
            self.add_error(
                "target_locales",
                _("%(language)s is the source locale: untick it, or choose another source.")
                % {"language": source.get_display_name()},
            )
            return
        self.cleaned_data["target_locales"] = codes

    def run_options(self) -> dict[str, Any]:
        """Keyword arguments of ``api.start_run`` (without scope, source locale and user)."""
        data = self.cleaned_data
        return {
            "target_locales": data["target_locales"],
            "mode": data["mode"],
            "publish_policy": data["publish_policy"],
            "content_source": data["content_source"],
            "canary_size": data["canary_size"] if data["use_canary"] else None,
            "translator": translator_choice(data),
            "allowed_translators": get_settings().EDITOR_TRANSLATORS,
        }

    def needs_cost_confirmation(self, estimate: CostEstimate) -> bool:
        threshold = get_settings().CONFIRM_ABOVE_COST
        return threshold is not None and estimate.estimated_cost > Decimal(str(threshold))

    def check_cost_confirmed(self, estimate: CostEstimate) -> bool:
        """False (with a field error) when the estimate needs a confirmation not given."""
        if self.needs_cost_confirmation(estimate) and not self.cleaned_data.get("confirm_cost"):
            threshold = get_settings().CONFIRM_ABOVE_COST
            self.add_error(
                "confirm_cost",
                _(
                    "This run is estimated at %(cost)s %(currency)s, above %(threshold)s: tick "
                    "the box to start it anyway."
                )
                % {
                    "cost": estimate.estimated_cost,
                    "currency": estimate.currency,
                    "threshold": threshold,
                },
            )
            return False
        return True

    def add_api_error(self, err: BulkTranslateError) -> None:
        """Show an error the API refused the request with (its message says what to do)."""
        self.add_error(None, str(err))

    def hidden_fields_for_confirmation(self) -> list:
        """Every bound field as hidden inputs: the confirm step re-posts the whole request."""
        return [field.as_hidden() for field in self if field.name != "confirm_cost"]


class PageChooser(AdminPageChooser):
    """Wagtail's page chooser, re-displaying a posted value that is not a page id as empty
    instead of crashing (the field reports the error)."""

    def get_instance(self, value: Any) -> Page | None:
        try:
            return super().get_instance(value)
        except (ValueError, TypeError, ValidationError):
            return None


class PageRootForm(forms.Form):
    """One page of the scope, with or without the pages under it."""

    page = forms.ModelChoiceField(
        label=_("Page"),
        queryset=Page.objects.all(),
        required=False,
        widget=PageChooser(),
        help_text=_("A page in the source locale."),
    )
    descendants = forms.BooleanField(
        label=_("Include the pages under it"),
        required=False,
        initial=True,
        help_text=_("Untick to translate this page only."),
    )


PageRootFormSet = forms.formset_factory(PageRootForm, extra=0, min_num=1, max_num=50)


def model_choices(
    labels: list[str], source_locale: Locale | None, *, plural: bool = True
) -> list[tuple[str, str]]:
    """(label, "Categories (12)") for models of the scope: one count query per model."""
    choices = []
    for label in labels:
        model = apps.get_model(label)
        rows = model._default_manager.all()
        if source_locale is not None and issubclass(model, TranslatableMixin):
            rows = rows.filter(locale=source_locale)
        name = capfirst(model._meta.verbose_name_plural if plural else model._meta.verbose_name)
        choices.append((label, f"{name} ({rows.count()})"))
    return choices


class NewRunForm(RunOptionsForm):
    """The new-run wizard's form: the scope and source locale, then the shared run options.

    Page roots come from a ``PageRootFormSet`` bound beside it (prefix ``pages``).
    """

    whole_site = forms.BooleanField(
        label=_("The whole site"),
        required=False,
        help_text=_(
            "Every page tree, translatable snippet and setting of the source locale. The pages, "
            "snippets and settings chosen below are then all included anyway."
        ),
    )
    source_locale = forms.ModelChoiceField(
        label=_("Source locale"),
        queryset=Locale.objects.all(),
        to_field_name="language_code",
        empty_label=None,
        help_text=_("The locale the content is written in; it is translated from this locale."),
    )
    snippets = forms.MultipleChoiceField(
        label=_("Snippets"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Every object of these snippet types (counted in the source locale) is translated."
        ),
    )
    page_types = forms.MultipleChoiceField(
        label=_("Only these page types"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Leave empty to translate every page of the trees. Chosen: the pages of other "
            "types are left out (the coverage report's “Translate” of one row fills it)."
        ),
    )
    settings = forms.MultipleChoiceField(
        label=_("Settings"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Translatable settings: every row of these types is translated."),
    )

    field_order = ["whole_site", "source_locale", "snippets", "page_types", "settings"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        source = self.counting_locale()
        choice_field(self, "snippets").choices = model_choices(
            translatable_snippet_labels(), source
        )
        choice_field(self, "page_types").choices = model_choices(page_type_labels(), source)
        # Settings read better in the singular ("Site branding"): there is one per site/locale.
        choice_field(self, "settings").choices = model_choices(
            translatable_setting_labels(), source, plural=False
        )
        self.fields["source_locale"].initial = Locale.get_default().language_code

    def counting_locale(self) -> Locale | None:
        code = self.data.get("source_locale") if self.is_bound else None
        code = code or self.initial.get("source_locale")
        locale = Locale.objects.filter(language_code=code).first() if code else None
        return locale or Locale.objects.filter(pk=Locale.get_default().pk).first()

    def check_scope_chosen(self, page_roots: list[dict[str, Any]]) -> bool:
        """False, with an error on the form, when nothing at all was chosen."""
        data = self.cleaned_data
        if data.get("whole_site") or page_roots or data.get("snippets") or data.get("settings"):
            return True
        self.add_error(
            "whole_site",
            _("Choose what to translate: the whole site, or some pages, snippets or settings."),
        )
        return False

    def scope(self, page_roots: list[dict[str, Any]]) -> Scope:
        data = self.cleaned_data
        if data["whole_site"]:
            scope = whole_site_scope(data["source_locale"])
        else:
            scope = Scope(
                pages=page_roots, snippets=list(data["snippets"]), settings=list(data["settings"])
            )
        if data.get("page_types"):
            scope.exclude_models = [
                label for label in page_type_labels() if label not in data["page_types"]
            ]
        return scope


def page_type_labels() -> list[str]:
    """Every page model but Wagtail's root ``Page``, by label."""
    return sorted(model_label(model) for model in get_page_models() if model is not Page)


def page_roots(formset: forms.BaseFormSet[PageRootForm]) -> list[dict[str, Any]]:
    """The scope's ``pages`` entries from a valid PageRootFormSet (empty rows left out)."""
    roots: dict[int, bool] = {}
    for form in formset.forms:
        page = form.cleaned_data.get("page")
        if page is not None:
            roots[page.pk] = roots.get(page.pk, False) or form.cleaned_data["descendants"]
    return [{"id": pk, "descendants": descendants} for pk, descendants in roots.items()]
