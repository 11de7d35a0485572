"""Units: the unit table, not the task queue, is the source of truth for the work."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone
from wagtail.models import Locale

from ..errors import ErrorCode
from . import tally_writes as tally
from .choices import UnitStatus
from .runs import Run

# Every time comparison uses the database clock (Now()), never a worker's.
EXPIRED_LEASE = Q(status="running", lease_expires_at__lt=Now())
READY = Q(status="pending", waiting_batch__isnull=True) & (
    Q(available_after__isnull=True) | Q(available_after__lte=Now())
)
# A run translated the object into the locale, or found it unchanged, and was not reverted:
# what "last translated" means for coverage, "changed" runs and the editor's panel.
TRANSLATED = (
    Q(status=UnitStatus.SUCCEEDED) | Q(status=UnitStatus.SKIPPED, error_code=ErrorCode.UNCHANGED)
) & Q(reverted_at__isnull=True)

LEASE_EXPIRED_MESSAGE = (
    "Its worker died every time it was processed alone. "
    "Retry it; if it keeps failing, the object may be too large to translate in one go."
)


class UnitQuerySet(models.QuerySet):
    # Every write keeps the run tally exact, in the same transaction (see tally_writes.py).
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

    def last_translated_at(self, object_key: Any, target_locale_id: Any) -> models.Subquery:
        """When a run last translated the object into the locale, or found it unchanged (not
        reverted), as a subquery: the arguments are outer references. MAX over the
        (object_key, target_locale, ...) index, not ORDER BY ... LIMIT 1: no sort per row."""
        return models.Subquery(
            self.filter(TRANSLATED, object_key=object_key, target_locale_id=target_locale_id)
            .values("object_key")
            .annotate(last=models.Max("finished_at"))
            .values("last")
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
    # Pending while a language model's Batch API answers its texts: not claimable, no lease
    # held; the poller sets it back to None once the batch is answered (engine.provider_batches).
    waiting_batch = models.ForeignKey(
        "wagtail_bulk_translate.ProviderBatch",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="waiting_units",
    )

    error_code = models.CharField(max_length=32, blank=True, choices=ErrorCode.choices)
    error_message = models.TextField(blank=True)
    # Why a unit that succeeded wrote no target (a canary of a model without drafts).
    note = models.TextField(blank=True)

    strings_translated = models.PositiveIntegerField(default=0)
    billed_characters = models.PositiveIntegerField(default=0)
    source_hash = models.CharField(max_length=64, blank=True)
    # The source revision the unit translated (the live one, or the latest draft when the run
    # reads drafts): the target editor's "translated from" line. Not a foreign key: pruning old
    # revisions must not touch the run history.
    source_revision_id = models.PositiveBigIntegerField(null=True, blank=True)
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
