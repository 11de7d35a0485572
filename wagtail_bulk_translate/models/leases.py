"""Row leases the janitor and the workers share: the live janitor chain, texts in flight."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale


class JanitorLease(models.Model):
    """A single row: which chain of janitor tasks is the live one (others exit)."""

    token = models.UUIDField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("janitor lease")

    def __str__(self) -> str:
        return f"Janitor lease {self.token or '(free)'} until {self.expires_at}"


class TextReservation(models.Model):
    """A source text being sent to the translator for a locale by one worker right now.

    Other workers needing the same text wait for its translation instead of paying for it
    again; a reservation whose worker died expires with the lease.
    """

    locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    text_hash = models.CharField(max_length=64)
    token = models.UUIDField()
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["locale", "text_hash"], name="wbt_one_text_in_flight")
        ]

    def __str__(self) -> str:
        return f"{self.text_hash[:12]} → {self.locale_id} until {self.expires_at}"
