"""The form of one cap: a period, whose runs count, and its limits (both empty: no cap)."""

from __future__ import annotations

from typing import Any

from django.core.validators import MinValueValidator
from django.utils.translation import gettext_lazy as _
from wagtail.admin.forms import WagtailAdminModelForm

from ...budgets.caps import Cap
from ...conf import get_settings
from ...models import BudgetCap, RunOrigin


class BudgetCapForm(WagtailAdminModelForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        currency = get_settings().CURRENCY
        self.fields["cost"].label = _("Cost (%(currency)s)") % {"currency": currency}
        # A negative cap would hold every priced run at once.
        self.fields["cost"].validators.append(MinValueValidator(0))
        self.fields["cost"].widget.attrs["min"] = "0"
        self.fields["origin"].choices = [("", _("All runs")), *RunOrigin.choices]
        self.fields["characters"].help_text = _(
            "Characters sent to the translator, as the preflight counts them. Leave both limits "
            "empty for no cap (it lifts the settings' cap of this period and origin)."
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        period, origin = cleaned.get("period"), cleaned.get("origin") or ""
        others = BudgetCap.objects.filter(period=period, origin=origin).exclude(pk=self.instance.pk)
        if period and others.exists():
            cap = Cap(period, origin or None)
            self.add_error(
                "period",
                _("There already is %(cap)s: edit it instead.") % {"cap": cap.describe()},
            )
        return cleaned

    def validate_unique(self) -> None:
        """clean() says it in words; the database constraint stays the guard."""
