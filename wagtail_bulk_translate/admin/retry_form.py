"""The run page's "Retry failed units" form: narrow a retry by type, locale and reason.

Each filter offers only what failed, as Wagtail's checkbox lists (the admin's own multiple
choice widget, as in its listing filters); choosing nothing retries every failed unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext_lazy as _

from ..api import ErrorCode
from ..models import UnitStatus
from .forms import choice_field
from .progress import RunReport

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

FILTERS = ("models", "locales", "error_codes")


class RetryForm(forms.Form):
    models = forms.MultipleChoiceField(
        label=_("Type"), required=False, widget=forms.CheckboxSelectMultiple
    )
    locales = forms.MultipleChoiceField(
        label=_("Locale"), required=False, widget=forms.CheckboxSelectMultiple
    )
    error_codes = forms.MultipleChoiceField(
        label=_("Reason"), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, report: RunReport, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, choices in retry_choices(report).items():
            choice_field(self, name).choices = choices

    def offered_fields(self) -> list[forms.BoundField]:
        """The filters with something to choose (a run that failed in one locale only offers
        no locale filter)."""
        return [self[name] for name in FILTERS if choice_field(self, name).choices]

    def filters(self) -> dict[str, list[str]]:
        return {name: self.cleaned_data[name] for name in FILTERS}


def retry_choices(report: RunReport) -> dict[str, list[tuple[str, StrOrPromise]]]:
    """Filters the retry form offers: only models, locales and codes that have failures."""
    failed = UnitStatus.FAILED
    return {
        "models": [
            (label, report.model_names[label])
            for label, row in report.by_model.items()
            if row[failed]
        ],
        "locales": [(code, code) for code, row in report.by_locale.items() if row[failed]],
        "error_codes": [
            (code, ErrorCode(code).label if code in ErrorCode.values else code)
            for code in sorted(report.failures)
        ],
    }
