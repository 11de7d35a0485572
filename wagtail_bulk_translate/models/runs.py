"""Runs: one bulk translation an editor starts, with its settings pinned for its whole life."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from wagtail.models import Locale

from ..errors import ErrorCode
from .choices import (
    ContentSource,
    Mode,
    PublishPolicy,
    RunOrigin,
    RunStatus,
    SlugPolicy,
    UnitStatus,
)
from .tally import RunTally


class RunQuerySet(models.QuerySet):
    def active(self) -> RunQuerySet:
        return self.filter(status__in=RunStatus.active)

    def in_progress(self) -> RunQuerySet:
        return self.filter(status__in=RunStatus.in_progress)

    def paused_for_quota(self) -> RunQuerySet:
        return self.filter(status=RunStatus.PAUSED, error_code=ErrorCode.QUOTA_EXCEEDED)

    def paused_for_budget(self) -> RunQuerySet:
        return self.filter(status=RunStatus.PAUSED, error_code=ErrorCode.BUDGET_EXCEEDED)

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

    # The translator the run uses; credentials are never stored here (translators.secrets),
    # only their keyed digest, to tell that they changed. Resume and retry take the settings as
    # they are then (fixing the translator options fixes the run) and say so.
    translator_class = models.CharField(max_length=255)
    translator_options = models.JSONField(default=dict, blank=True)
    translator_credentials_digest = models.CharField(max_length=64, blank=True)
    translator_changed_at = models.DateTimeField(null=True, blank=True)
    translator_change = models.TextField(blank=True)
    # Per target locale (keyed by its id): the profile that translates it, pinned when the run
    # starts ({"profile", "class", "options", "credentials_digest"}: translators.pins). The
    # fields above hold the first locale's, as runs from before profiles held their only one.
    locale_translators = models.JSONField(default=dict, blank=True)

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # Whose Wagtail permissions the run's writes are checked against (see scope.permissions):
    # the editor who started it, or last retried it. A run started without a user (the command
    # line without --as-user, code) acts as the system, with every right.
    acting_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    acts_as_system = models.BooleanField(default=False)
    origin = models.CharField(
        max_length=16, choices=RunOrigin.choices, default=RunOrigin.ADMIN, db_index=True
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
    # Paused by a budget: what the refused request's first text needs ({"characters": n,
    # "cost": "x"}); the run goes on once every cap has that much room again.
    budget_needs = models.JSONField(null=True, blank=True)
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
    # {task name: {"count": failures in a row, "error": "Class: message"}} (engine.task_failures).
    task_failures = models.JSONField(default=dict, blank=True)

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
