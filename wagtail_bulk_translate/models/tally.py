"""The run tally's model: unit counts and sums kept per run, so reading progress is O(1).

One row per (run, target locale, content type, status, error code) holds how many of the run's
units are in that group and what they translated and billed. Every change to a unit's status,
error code or totals moves it between rows in the same transaction (``tally_writes.py``),
so the status API reads a few rows per run instead of aggregating its units; the
number of rows depends on the run's locales, models and error codes, never on its size.
"""

from __future__ import annotations

from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Sum
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale

# The unit fields a tally row is keyed on, and those it sums (besides the count of units).
KEY_FIELDS = ("run_id", "target_locale_id", "content_type_id", "status", "error_code")
SUM_FIELDS = ("strings_translated", "billed_characters")


class RunTallyQuerySet(models.QuerySet):
    def of_run(self, run_id: int) -> RunTallyQuerySet:
        """The run's rows that hold units (a group emptied keeps its row, at zero)."""
        return self.filter(run_id=run_id, units__gt=0)

    def units_per(self, *fields: str) -> Any:
        """(fields..., units) rows: the units summed over the other key fields."""
        return self.values_list(*fields).annotate(n=Sum("units")).order_by()

    def totals(self) -> dict[str, int]:
        return self.aggregate(
            units=Coalesce(Sum("units"), 0),
            strings_translated=Coalesce(Sum("strings_translated"), 0),
            billed_characters=Coalesce(Sum("billed_characters"), 0),
        )


class RunTally(models.Model):
    run = models.ForeignKey(
        "wagtail_bulk_translate.Run", on_delete=models.CASCADE, related_name="tallies"
    )
    # Cascades like the units they count: deleting a locale or a model deletes both.
    target_locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16)
    error_code = models.CharField(max_length=32, blank=True)
    units = models.BigIntegerField(default=0)
    strings_translated = models.BigIntegerField(default=0)
    billed_characters = models.BigIntegerField(default=0)

    objects = RunTallyQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "target_locale", "content_type", "status", "error_code"],
                name="wbt_one_tally_per_group",
            )
        ]
        verbose_name = _("run tally")

    def __str__(self) -> str:
        return f"Run #{self.run_id} {self.status}/{self.error_code or '-'}: {self.units}"
