"""Changes waiting for their automatic run, and the events reported instead of acted on.

A change is an upsert on the object's row: the first publish of a burst inserts it (due when
the window closes) and queues the one delayed task that will dispatch it; later publishes only
bump the row. Every write here runs after the publish's transaction committed, so it can
neither slow down nor break the publish (see receivers.py).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone
from wagtail.models import Page

from .. import schedule
from ..conf import get_settings
from ..models import PendingChange, SyncEvent, SyncSwitch


def content_type_of(instance: Any) -> ContentType:
    """Pages by their base model (units and scopes find them as their specific type)."""
    model = Page if isinstance(instance, Page) else type(instance)
    return ContentType.objects.get_for_model(model)


def user_id_of(user: Any) -> int | None:
    return getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None


def record_change(instance: Any, user: Any) -> bool:
    """Remember that ``instance`` changed; True if this started a new burst (a task queued)."""
    now = timezone.now()
    bumped = PendingChange.objects.filter(object_key=instance.translation_key).update(
        last_changed_at=now, changes=F("changes") + 1, changed_by_id=user_id_of(user)
    )
    if bumped:
        return False
    due_at = now + timedelta(seconds=get_settings().SYNC_WINDOW_SECONDS)
    change = PendingChange(
        object_key=instance.translation_key,
        content_type=content_type_of(instance),
        object_id=str(instance.pk),
        source_locale_id=instance.locale_id,
        changed_by_id=user_id_of(user),
        first_changed_at=now,
        last_changed_at=now,
        due_at=due_at,
    )
    # Two publishes racing here: the loser's change is the winner's row, due as soon.
    PendingChange.objects.bulk_create([change], ignore_conflicts=True)
    schedule.dispatch_sync_changes(when=due_at)
    return True


def forget_change(instance: Any) -> None:
    PendingChange.objects.filter(object_key=instance.translation_key).delete()


def record_event(kind: str, instance: Any, user: Any) -> None:
    SyncEvent.objects.create(
        kind=kind,
        object_repr=str(instance)[:255],
        content_type=content_type_of(instance),
        object_id=str(instance.pk),
        user_id=user_id_of(user),
    )


def overdue_changes() -> Any:
    """Changes whose dispatch is late: its task was lost (a worker died) or the run holding
    the object has ended. Not those held back by a paused site, nor any while all is paused."""
    grace = timedelta(seconds=get_settings().STALL_SECONDS)
    return PendingChange.objects.filter(due_at__lt=Now() - grace, held_by_pause=False)


def sync_paused() -> bool:
    return SyncSwitch.objects.filter(pk=1, paused=True).exists()


def claim_next_dispatch(seconds: float) -> bool:
    """Whether to queue a dispatch ``seconds`` from now: false when one is already due by then
    (a compare-and-set on the switch row, so a burst of callers queues one task)."""
    SyncSwitch.objects.get_or_create(pk=1)
    when = timezone.now() + timedelta(seconds=seconds)
    free = Q(next_dispatch_at__isnull=True) | Q(next_dispatch_at__lt=Now())
    return bool(SyncSwitch.objects.filter(pk=1).filter(free).update(next_dispatch_at=when))


def rearm_overdue_dispatch() -> bool:
    """Queue a dispatch if overdue changes wait and none is on its way (the janitor's sweep)."""
    if sync_paused() or not overdue_changes().exists():
        return False
    if not claim_next_dispatch(get_settings().STALL_SECONDS):
        return False
    schedule.dispatch_sync_changes()
    return True
