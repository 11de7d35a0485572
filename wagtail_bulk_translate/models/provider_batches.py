"""Provider batches: a run's requests sent to a language model's Batch API, answered within a
completion window at half the price (see :mod:`wagtail_bulk_translate.engine.provider_batches`).

The row is written before anything goes to the provider, and its ``token`` travels in the
batch's metadata: a worker killed while submitting leaves a row the poller can match to what
the provider has, so nothing is submitted twice. Its answers reach the billing ledger in the
same transaction that marks the row ingested, so nothing is paid twice.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale


class BatchState(models.TextChoices):
    SUBMITTING = "submitting", _("Being submitted")
    SUBMITTED = "submitted", _("Waiting for the provider")
    INGESTED = "ingested", _("Answered")
    FAILED = "failed", _("Failed")
    EXPIRED = "expired", _("Expired")
    CANCELLED = "cancelled", _("Cancelled")

    @classmethod
    def waiting(cls) -> tuple[str, ...]:
        return (cls.SUBMITTING, cls.SUBMITTED)


class ProviderBatch(models.Model):
    run = models.ForeignKey(
        "wagtail_bulk_translate.Run", on_delete=models.CASCADE, related_name="provider_batches"
    )
    locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    profile = models.CharField(max_length=40)
    token = models.UUIDField(default=uuid.uuid4, unique=True)
    state = models.CharField(
        max_length=16, choices=BatchState.choices, default=BatchState.SUBMITTING, db_index=True
    )
    # [{"custom_id", "body" (the request), "ids" ({text body: item id}), "texts", "owners"
    # ({text: unit id})}], as the translator built them (translators.llm.batches).
    requests = models.JSONField(default=list)
    text_hashes = models.JSONField(default=list)
    provider_batch_id = models.CharField(max_length=128, blank=True)
    input_file_id = models.CharField(max_length=128, blank=True)
    provider_status = models.CharField(max_length=32, blank=True)
    message = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    submitted_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    polled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["run", "locale"], name="wbt_provider_batch_idx")]
        verbose_name = _("provider batch")
        verbose_name_plural = _("provider batches")

    def __str__(self) -> str:
        return f"Batch {self.provider_batch_id or self.token} of run #{self.run_id}: {self.state}"

    @property
    def request_count(self) -> int:
        return len(self.requests)
