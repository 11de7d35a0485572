"""Automatic sync: what is synced (per site), the global switch, changes waiting for their run,
and the events (a synced source unpublished, moved or deleted) reported to editors."""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale, Page, Site


class SyncConfiguration(models.Model):
    """What a site keeps in sync: its page tree (or a subtree), snippet models, target locales.

    The source locale is the locale of the site's root page; ``paused`` holds this site's
    changes back, and its automatic runs, until it is resumed (the global switch is
    :class:`SyncSwitch`).
    """

    site = models.OneToOneField(
        Site, on_delete=models.CASCADE, related_name="+", verbose_name=_("site")
    )
    root_page = models.ForeignKey(
        Page,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("page tree"),
        help_text=_("Only this page and its descendants; empty: the site's whole tree."),
    )
    target_locales = models.ManyToManyField(
        Locale, related_name="+", verbose_name=_("target locales")
    )
    snippet_models = models.JSONField(
        default=list,
        blank=True,
        verbose_name=_("snippet models"),
        help_text=_("Translatable snippet models kept in sync too."),
    )
    enabled = models.BooleanField(default=True, verbose_name=_("enabled"))
    paused = models.BooleanField(
        default=False,
        verbose_name=_("paused"),
        help_text=_("Changes are remembered and translated once this site is resumed."),
    )
    updated_at = models.DateTimeField(auto_now=True)
    # The automatic runs started for this site's changes: pausing the site pauses those of them
    # that serve no site still syncing.
    runs = models.ManyToManyField(
        "wagtail_bulk_translate.Run", blank=True, editable=False, related_name="sync_configurations"
    )

    class Meta:
        verbose_name = _("automatic sync configuration")
        verbose_name_plural = _("automatic sync configurations")
        ordering = ["site__hostname", "pk"]

    def __str__(self) -> str:
        return str(_("Automatic sync of %(site)s")) % {"site": self.site}


class SyncSwitch(models.Model):
    """A single row (pk=1): the global "pause all automatic translation" switch."""

    paused = models.BooleanField(default=False)
    changed_at = models.DateTimeField(null=True, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # When the next dispatch task is due: callers that find one on its way queue none.
    next_dispatch_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("automatic sync switch")

    def __str__(self) -> str:
        return str(_("Automatic translation paused")) if self.paused else str(_("Automatic sync"))


class PendingChange(models.Model):
    """A source object changed since its last automatic run: one row per object, whatever the
    number of publishes (bursts coalesce here), until a run takes it."""

    object_key = models.UUIDField(unique=True)
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    object_id = models.CharField(max_length=64)
    source_locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    # Who published last: the automatic run is created in their name.
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    first_changed_at = models.DateTimeField(default=timezone.now)
    last_changed_at = models.DateTimeField(default=timezone.now)
    changes = models.PositiveIntegerField(default=1)
    # When the window of the first change closes; later publishes do not push it back, so a
    # page edited all day is still translated every window.
    due_at = models.DateTimeField(db_index=True)
    # Why the last dispatch left it waiting (a run holds the object, sync paused, ...).
    waiting_reason = models.TextField(blank=True)
    # Every site syncing it is paused: the janitor leaves it alone until a resume.
    held_by_pause = models.BooleanField(default=False)

    class Meta:
        ordering = ["due_at", "pk"]
        verbose_name = _("pending automatic translation")

    def __str__(self) -> str:
        return f"{self.content_type_id}:{self.object_id} due {self.due_at:%Y-%m-%d %H:%M:%S}"


class SyncEventKind(models.TextChoices):
    UNPUBLISHED = "unpublished", _("Source unpublished")
    MOVED = "moved", _("Source moved")
    DELETED = "deleted", _("Source deleted")


class SyncEvent(models.Model):
    """A synced source unpublished, moved or deleted: its translations were left as they are
    (``SYNC_ON_SOURCE_REMOVED = "report"``), and the sync screen lists it."""

    kind = models.CharField(max_length=16, choices=SyncEventKind.choices)
    object_repr = models.CharField(max_length=255)
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    object_id = models.CharField(max_length=64)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("automatic sync event")

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.object_repr}"
