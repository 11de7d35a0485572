"""The billing ledger: what was sent to the translator, per text and request."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale


class SentOutcome(models.TextChoices):
    TRANSLATED = "translated", _("Translated")
    INVALID_MARKUP = "invalid_markup", _("Markup broken")
    REFUSED = "refused", _("Refused")
    MISSING = "missing", _("Not in the answer")
    # Sent, and the request failed before any answer came (a timeout, a dropped connection):
    # the provider may have billed it.
    UNANSWERED = "unanswered", _("Sent, no answer")


class SentText(models.Model):
    """The billing ledger: one row per text per translator request of a run.

    Written the moment the request is answered, before anything else can fail: the run's
    billed total is the sum of what the translator reported, whatever became of the units, and
    a translation paid for is kept here so a retried unit never pays for it again (see
    engine.ledger).
    """

    run = models.ForeignKey(
        "wagtail_bulk_translate.Run", on_delete=models.CASCADE, related_name="sent_texts"
    )
    locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    # The translator profile that was sent the text (budgets and reports count per profile).
    profile = models.CharField(max_length=40, blank=True, default="")
    # The unit the text was first sent for: its characters count as that unit's.
    unit = models.ForeignKey(
        "wagtail_bulk_translate.Unit", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    request = models.UUIDField()
    text_hash = models.CharField(max_length=64)
    # What the provider billed (DeepL reports it; 0 for translators that do not).
    characters = models.PositiveIntegerField(default=0)
    # What went out: the text's characters without its markup, as the estimate counts them.
    sent_characters = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=16, choices=SentOutcome.choices)
    # Times the markup broke in this request (a DeepL refusal counts 2: it retried once).
    markup_failures = models.PositiveSmallIntegerField(default=0)
    translation = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["run", "locale", "text_hash"], name="wbt_sent_text_idx"),
            # The budgets sum a calendar day's or month's spending over every run.
            models.Index(fields=["created_at"], name="wbt_sent_text_time_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.text_hash[:12]} → {self.locale_id}: {self.characters} ({self.outcome})"


class SpentRequest(models.Model):
    """The billing ledger's token side: what one translator request cost, for translators that
    pay by the token (a language model). One row per request that reported a ``Spend``,
    written with that request's :class:`SentText` rows (same ``request``), so a request's cost
    is recorded once, whatever becomes of its units.
    """

    run = models.ForeignKey(
        "wagtail_bulk_translate.Run", on_delete=models.CASCADE, related_name="spent_requests"
    )
    locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    request = models.UUIDField()
    profile = models.CharField(max_length=40, blank=True, default="")
    # Provider calls behind this request (retries and split batches included).
    calls = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    # In the run's CURRENCY, from the translator's price table.
    cost = models.DecimalField(max_digits=14, decimal_places=6, default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["run", "locale"], name="wbt_spent_request_idx"),
            models.Index(fields=["created_at"], name="wbt_spent_request_time_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.request}: {self.prompt_tokens}+{self.completion_tokens} tokens, {self.cost}"


class BudgetReservation(models.Model):
    """What one translator request about to go out will spend, counted against the budgets
    until the request is in the ledger (deleted in the same transaction) or its worker died
    (``expires_at``, the unit lease's length): two workers checking a cap at once cannot both
    spend the same room (see :mod:`wagtail_bulk_translate.budgets.enforcement`).
    """

    token = models.UUIDField(unique=True)
    run = models.ForeignKey(
        "wagtail_bulk_translate.Run", on_delete=models.CASCADE, related_name="+"
    )
    profile = models.CharField(max_length=40, blank=True, default="")
    characters = models.PositiveIntegerField(default=0)
    # The translator's own estimate, for translators that report money (0 for the others).
    cost = models.DecimalField(max_digits=14, decimal_places=6, default=0)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.token}: {self.characters} characters, {self.cost}"
