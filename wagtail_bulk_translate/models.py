"""Runs and units: the unit table, not the task queue, is the source of truth for the work."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.functional import classproperty
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale

from . import tally
from .billing_models import SentOutcome as SentOutcome  # the billing ledger, kept apart
from .billing_models import SentText as SentText
from .errors import ErrorCode
from .tally_models import RunTally as RunTally  # the per-run unit counts, kept apart


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


class RunQuerySet(models.QuerySet):
    def active(self) -> RunQuerySet:
        return self.filter(status__in=RunStatus.active)

    def in_progress(self) -> RunQuerySet:
        return self.filter(status__in=RunStatus.in_progress)

    def paused_for_quota(self) -> RunQuerySet:
        return self.filter(status=RunStatus.PAUSED, error_code=ErrorCode.QUOTA_EXCEEDED)

    def pause(self, *, code: str = "", message: str = "") -> int:
        """Pause the runs in progress (a compare-and-set); returns how many paused."""
        return self.in_progress().update(
            status=RunStatus.PAUSED, error_code=code, error_message=message, paused_at=Now()
        )


class Run(models.Model):
    status = models.CharField(
        max_length=16, choices=RunStatus.choices, default=RunStatus.PENDING, db_index=True
    )
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.CHANGED)
    publish_policy = models.CharField(
        max_length=16, choices=PublishPolicy.choices, default=PublishPolicy.DRAFT
    )
    content_source = models.CharField(
        max_length=16, choices=ContentSource.choices, default=ContentSource.LIVE
    )
    slug_policy = models.CharField(
        max_length=16, choices=SlugPolicy.choices, default=SlugPolicy.DERIVE
    )
    source_locale = models.ForeignKey(Locale, on_delete=models.PROTECT, related_name="+")
    target_locales = models.ManyToManyField(Locale, related_name="+")
    scope = models.JSONField(default=dict)
    canary_size = models.PositiveIntegerField(null=True, blank=True)
    promoted_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="promotions"
    )

    # The translator the run uses; secrets are never stored here. Resume and retry take the
    # settings as they are then (fixing the translator options fixes the run) and say so.
    translator_class = models.CharField(max_length=255)
    translator_options = models.JSONField(default=dict, blank=True)
    translator_changed_at = models.DateTimeField(null=True, blank=True)
    translator_change = models.TextField(blank=True)

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # Coordinator state: an exact resume cursor and a lease so duplicate deliveries exit.
    enumeration_cursor = models.JSONField(null=True, blank=True)
    enumeration_done = models.BooleanField(default=False)
    coordinator_token = models.UUIDField(null=True, blank=True)
    coordinator_lease_expires_at = models.DateTimeField(null=True, blank=True)

    # Last time a worker claimed units of this run: the janitor restarts stalled runs.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # When the run was last paused: the janitor retries quota pauses after a while.
    paused_at = models.DateTimeField(null=True, blank=True)
    # Worker task chains the coordinator started (at most WORKER_CONCURRENCY per run).
    worker_chains = models.PositiveSmallIntegerField(default=0)
    # When a deferred worker task is due to come back; one such task per run at a time.
    wakeup_at = models.DateTimeField(null=True, blank=True)
    reverted_at = models.DateTimeField(null=True, blank=True)
    units_total = models.PositiveIntegerField(default=0)
    strings_translated = models.PositiveBigIntegerField(default=0)
    billed_characters = models.PositiveBigIntegerField(default=0)
    # The preflight's billable characters for the whole scope, when the run was started after
    # one (the admin compares what was billed with it); a promoted run inherits its canary's.
    estimated_characters = models.PositiveBigIntegerField(null=True, blank=True)

    # Page child counts (treebeard ``numchild``) found wrong in the subtrees the run wrote, and
    # repaired, when it finished.
    tree_repairs = models.PositiveIntegerField(default=0)

    error_code = models.CharField(max_length=32, blank=True, choices=ErrorCode.choices)
    error_message = models.TextField(blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        permissions = [("manage_runs", "Can start and manage bulk translation runs")]
        verbose_name = _("bulk translation run")
        verbose_name_plural = _("bulk translation runs")

    def __str__(self) -> str:
        kind = "Canary" if self.is_canary else "Run"
        return f"{kind} #{self.pk} ({self.get_status_display()})"

    @property
    def is_canary(self) -> bool:
        return bool(self.canary_size)

    @property
    def is_finished(self) -> bool:
        return self.status in RunStatus.terminal

    @property
    def is_reverting(self) -> bool:
        """A revert was started and its background task has not finished it yet."""
        return self.reverted_at is not None and self.status != RunStatus.REVERTED

    @property
    def is_settled(self) -> bool:
        """Nothing more will change without an editor: finished and not being reverted."""
        return self.is_finished and not self.is_reverting

    def unit_counts(self) -> dict[str, int]:
        """Units per status, every status present (from the tally: a few rows per run)."""
        counts = dict.fromkeys(UnitStatus.values, 0)
        counts.update(dict(RunTally.objects.of_run(self.pk).units_per("status")))
        return counts

    def unit_totals(self) -> dict[str, int]:
        totals = RunTally.objects.filter(run_id=self.pk).totals()
        return {name: totals[name] for name in ("strings_translated", "billed_characters")}


# Every time comparison uses the database clock (Now()), never a worker's.
EXPIRED_LEASE = Q(status="running", lease_expires_at__lt=Now())
READY = Q(status="pending") & (Q(available_after__isnull=True) | Q(available_after__lte=Now()))

LEASE_EXPIRED_MESSAGE = (
    "Its worker died every time it was processed alone. "
    "Retry it; if it keeps failing, the object may be too large to translate in one go."
)


class UnitQuerySet(models.QuerySet):
    # Every write keeps the run tally exact, in the same transaction (see tally.py).
    def update(self, **kwargs: Any) -> int:
        return tally.update_units(self, kwargs)

    def bulk_create(self, objs: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
        create = super().bulk_create
        return tally.create_units(
            self, list(objs), lambda o, **kw: create(o, *args, **kw), **kwargs
        )

    def delete(self) -> tuple[int, dict[str, int]]:
        return tally.delete_units(self, super().delete)

    def claimable(self) -> UnitQuerySet:
        """Pending and past their back-off, or held by a worker whose lease expired."""
        return self.filter(READY | EXPIRED_LEASE)

    def expired_leases(self) -> UnitQuerySet:
        return self.filter(EXPIRED_LEASE)

    def cancel_pending(self, code: str, message: str) -> int:
        return self.filter(status=UnitStatus.PENDING).update(
            status=UnitStatus.CANCELLED,
            error_code=code,
            error_message=message,
            finished_at=timezone.now(),
        )

    def requeue(self) -> int:
        """Back to pending with fresh attempts (retrying failed units)."""
        return self.update(
            status=UnitStatus.PENDING,
            attempts=0,
            claim_limit=None,
            available_after=None,
            error_code="",
            error_message="",
            finished_at=None,
        )


class Unit(models.Model):
    """One (source object, target locale) pair of a run."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="units")
    # Enumeration order of the object; all locales of one object share it, so a claim of
    # consecutive units shares the object's extraction.
    position = models.PositiveBigIntegerField()
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    object_id = models.CharField(max_length=64)
    # translation_key of the source (or a stable UUID for per-site settings rows): the
    # identity of "the object" across runs and locales.
    object_key = models.UUIDField()
    target_locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")

    status = models.CharField(max_length=16, choices=UnitStatus.choices, default=UnitStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # The most units the next claim of this unit may hold: halved each time a worker died
    # holding it, so a unit that kills its worker ends up alone (None: UNITS_PER_CLAIM).
    claim_limit = models.PositiveSmallIntegerField(null=True, blank=True)
    lease_token = models.UUIDField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    available_after = models.DateTimeField(null=True, blank=True)

    error_code = models.CharField(max_length=32, blank=True, choices=ErrorCode.choices)
    error_message = models.TextField(blank=True)
    # Why a unit that succeeded wrote no target (a canary of a model without drafts).
    note = models.TextField(blank=True)

    strings_translated = models.PositiveIntegerField(default=0)
    billed_characters = models.PositiveIntegerField(default=0)
    source_hash = models.CharField(max_length=64, blank=True)
    target_object_id = models.CharField(max_length=64, blank=True)
    # What revert needs (revert.state.RevertState): the target before, what the unit changed.
    revert_state = models.JSONField(null=True, blank=True)

    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Revert outcome: when the unit's write was undone, or why it was refused.
    reverted_at = models.DateTimeField(null=True, blank=True)
    revert_refused = models.TextField(blank=True)

    objects = UnitQuerySet.as_manager()

    class Meta:
        ordering = ["position", "target_locale_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["object_key", "target_locale"],
                condition=Q(status__in=["pending", "running"]),
                name="wbt_one_in_flight_unit_per_object_locale",
            ),
            models.UniqueConstraint(
                fields=["run", "object_key", "target_locale"], name="wbt_unit_once_per_run"
            ),
        ]
        indexes = [
            models.Index(fields=["run", "status", "position"], name="wbt_unit_claim_idx"),
            models.Index(
                fields=["object_key", "target_locale", "status", "finished_at"],
                name="wbt_unit_history_idx",
            ),
            models.Index(
                fields=["lease_expires_at"],
                condition=Q(status="running"),
                name="wbt_unit_lease_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"Unit #{self.pk} {self.content_type_id}:{self.object_id} → {self.target_locale_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        fields = kwargs.get("update_fields")
        tally.save_unit(self, lambda: super(Unit, self).save(*args, **kwargs), fields)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        rows = Unit.objects.filter(pk=self.pk)
        return tally.delete_units(rows, lambda: super(Unit, self).delete(*args, **kwargs))


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
