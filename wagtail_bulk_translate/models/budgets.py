"""Spending caps set in the admin (Bulk translation → Budgets), over the settings' defaults."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .choices import RunOrigin


class CapPeriod(models.TextChoices):
    RUN = "run", _("Per run")
    DAILY = "daily", _("Daily (calendar day)")
    MONTHLY = "monthly", _("Monthly (calendar month)")


class BudgetCap(models.Model):
    """One cap: it replaces the cap of ``WAGTAIL_BULK_TRANSLATE['BUDGETS']`` with the same
    period and origin. With neither limit it lifts that cap ("no cap")."""

    period = models.CharField(_("period"), max_length=8, choices=CapPeriod.choices)
    origin = models.CharField(
        _("counts"),
        max_length=16,
        choices=RunOrigin.choices,
        blank=True,
        help_text=_("Only the runs started this way count against the cap; empty: all runs."),
    )
    characters = models.PositiveBigIntegerField(
        _("characters"),
        null=True,
        blank=True,
        help_text=_("Characters sent to the translator, as the preflight counts them."),
    )
    cost = models.DecimalField(
        _("cost"),
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("In the settings' CURRENCY; only translators that report money count it."),
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )

    class Meta:
        verbose_name = _("budget cap")
        verbose_name_plural = _("budget caps")
        ordering = ["origin", "period"]
        constraints = [
            models.UniqueConstraint(fields=["period", "origin"], name="wbt_budget_cap_unique"),
        ]

    def __str__(self) -> str:
        period = CapPeriod(self.period).label
        origin = RunOrigin(self.origin).label if self.origin else _("all runs")
        return f"{period} — {origin}"
