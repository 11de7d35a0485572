"""Review of doubtful translations: a unit whose translation failed a check after translation.

A row of its own (not fields of ``Unit``), so marking, accepting or dismissing a review never
writes the unit row: the run tally and the leases are left alone.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from .review_flags import shown_message
from .units import Unit


class ReviewState(models.TextChoices):
    PENDING = "pending", _("Needs review")
    ACCEPTED = "accepted", _("Accepted")
    DISMISSED = "dismissed", _("Dismissed")
    RETRANSLATED = "retranslated", _("Translated again")


class UnitReview(models.Model):
    """Why a unit's translation needs an editor's eye, and what the editor decided."""

    unit = models.OneToOneField(
        Unit, on_delete=models.CASCADE, primary_key=True, related_name="review"
    )
    state = models.CharField(max_length=16, choices=ReviewState.choices, default="pending")
    # One entry per flagged text: {code, message, term, ratio, source, translation}.
    flags = models.JSONField(default=list)
    # The run's publish policy would have published this target: accepting publishes it.
    would_publish = models.BooleanField(default=False)
    flagged_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    # Re-translate: the one-unit run that translates the object again.
    retranslated_by = models.ForeignKey(
        "Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        indexes = [models.Index(fields=["state", "flagged_at"], name="wbt_review_state_idx")]

    def __str__(self) -> str:
        return f"Review of unit #{self.unit_id} ({self.state})"

    @property
    def reasons(self) -> list[str]:
        return list(dict.fromkeys(shown_message(flag) for flag in self.flags))

    @property
    def shown_flags(self) -> list[dict]:
        """The flags, each with its sentence in the reader's language."""
        return [{**flag, "message": shown_message(flag)} for flag in self.flags]
