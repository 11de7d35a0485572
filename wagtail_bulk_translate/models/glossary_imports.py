"""A glossary CSV import, worked on in the background (up to 50,000 terms take a while)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class GlossaryImportStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    """Checked and waiting for its task."""
    RUNNING = "running", _("Importing")
    """A task is writing its terms."""
    SUCCEEDED = "succeeded", _("Imported")
    """Every term was written; the counts say how many."""
    FAILED = "failed", _("Refused")
    """Nothing was written; ``errors`` says why, row by row."""


class GlossaryImport(models.Model):
    """One uploaded file: its text until it is imported, then what the import did."""

    file_name = models.CharField(max_length=255, blank=True)
    content = models.TextField(blank=True)
    status = models.CharField(
        max_length=16, choices=GlossaryImportStatus.choices, default=GlossaryImportStatus.QUEUED
    )
    rows = models.PositiveIntegerField(default=0)
    terms_created = models.PositiveIntegerField(default=0)
    terms_updated = models.PositiveIntegerField(default=0)
    translations_written = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("glossary import")
        verbose_name_plural = _("glossary imports")

    def __str__(self) -> str:
        return self.file_name or f"import #{self.pk}"

    @property
    def finished(self) -> bool:
        return self.status in (GlossaryImportStatus.SUCCEEDED, GlossaryImportStatus.FAILED)
