"""The statuses and options of runs and units."""

from __future__ import annotations

from django.db import models
from django.utils.functional import classproperty
from django.utils.translation import gettext_lazy as _


class RunStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    """Created; the coordinator has not started enumerating yet."""
    RUNNING = "running", _("Running")
    """Enumerating and/or translating."""
    PAUSED = "paused", _("Paused")
    """No new units are claimed until resumed (quota exhausted or by an editor)."""
    SUCCEEDED = "succeeded", _("Succeeded")
    """Every unit succeeded or was skipped."""
    PARTIAL = "partial", _("Partially succeeded")
    """Some units failed, some succeeded."""
    FAILED = "failed", _("Failed")
    """Nothing succeeded, or the run stopped on a configuration error."""
    CANCELLED = "cancelled", _("Cancelled")
    """Stopped by an editor; units in flight finished, the rest were cancelled."""
    REVERTED = "reverted", _("Reverted")
    """Targets were restored to their state before the run."""

    @classproperty
    def active(cls) -> tuple[str, ...]:
        """Not over yet: in progress, or paused until resumed."""
        return (cls.PENDING, cls.RUNNING, cls.PAUSED)

    @classproperty
    def in_progress(cls) -> tuple[str, ...]:
        """Active and not paused: work is being enumerated or done."""
        return (cls.PENDING, cls.RUNNING)

    @classproperty
    def terminal(cls) -> tuple[str, ...]:
        return (cls.SUCCEEDED, cls.PARTIAL, cls.FAILED, cls.CANCELLED, cls.REVERTED)


class Mode(models.TextChoices):
    CHANGED = "changed", _("Changed content only")
    """Objects changed since their last machine translation, or never translated."""
    REFRESH = "refresh", _("Refresh machine translations")
    """Re-translate every machine translation; manual translations are kept."""
    OVERWRITE = "overwrite", _("Overwrite everything")
    """Re-translate everything, manual translations included. Destructive."""


class PublishPolicy(models.TextChoices):
    DRAFT = "draft", _("Save as drafts")
    PUBLISH = "publish", _("Publish")
    MIRROR = "mirror", _("Mirror the source's live status")


class RunOrigin(models.TextChoices):
    """Who asked for the run: budgets, the listing's filter and the audit log tell them apart."""

    ADMIN = "admin", _("An editor in the admin")
    COMMAND = "command", _("The command line")
    AUTOMATIC = "automatic", _("Automatic sync")


class ContentSource(models.TextChoices):
    LIVE = "live", _("Live (published) content")
    LATEST_DRAFT = "draft", _("Latest draft")


class SlugPolicy(models.TextChoices):
    DERIVE = "derive", _("Derive from the translated title")
    """New pages get a slug made from their translated title."""
    KEEP = "keep", _("Keep the source slug")
    """New pages keep the source page's slug."""
    TRANSLATE = "translate", _("Translate the slug")
    """The slug is machine-translated like any other string."""


class UnitStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    """Waiting for a worker to claim it."""
    RUNNING = "running", _("Running")
    """Claimed by a worker that holds its lease."""
    SUCCEEDED = "succeeded", _("Succeeded")
    """The target was written (or the strings stored, for canary units of draft-less models)."""
    SKIPPED = "skipped", _("Skipped")
    """Deliberately left alone; ``error_code`` says why."""
    FAILED = "failed", _("Failed")
    """Did not translate; ``error_code`` and ``error_message`` say why."""
    CANCELLED = "cancelled", _("Cancelled")
    """The run was cancelled before a worker claimed it."""

    @classproperty
    def in_flight(cls) -> tuple[str, ...]:
        return (cls.PENDING, cls.RUNNING)

    @classproperty
    def terminal(cls) -> tuple[str, ...]:
        return (cls.SUCCEEDED, cls.SKIPPED, cls.FAILED, cls.CANCELLED)
