"""What automatic sync is doing, as plain values: the sync screen and ``bulk_translate sync
status`` show the same facts."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from wagtail.admin.utils import get_user_display_name

from ..conf import get_settings
from ..errors import ErrorCode
from ..models import PendingChange, Run, RunOrigin, RunStatus, SyncConfiguration, SyncEvent
from ..objects import find_by_content_type
from .pending import sync_paused

RECENT = 10


def waiting_for_budget(run: Run) -> bool:
    return run.status == RunStatus.PAUSED and run.error_code == ErrorCode.BUDGET_EXCEEDED


def configuration_row(configuration: SyncConfiguration) -> dict[str, Any]:
    root = configuration.root_page or configuration.site.root_page
    return {
        "id": configuration.pk,
        "site": str(configuration.site),
        "tree": {"id": root.pk, "title": root.title},
        "locales": sorted(locale.language_code for locale in configuration.target_locales.all()),
        "snippet_models": list(configuration.snippet_models or []),
        "enabled": configuration.enabled,
        "paused": configuration.paused,
    }


def person(user: Any) -> str | None:
    """The name the admin shows for a user (not the username), None for nobody."""
    return get_user_display_name(user) if user else None


def object_title(change: PendingChange) -> str:
    instance = find_by_content_type(change.content_type_id, change.object_id)
    if instance is None:  # deleted since it was published
        return f"{change.content_type.name} {change.object_id}"
    return str(instance)


def pending_row(change: PendingChange) -> dict[str, Any]:
    return {
        "content_type": change.content_type.model,
        "object_id": change.object_id,
        "title": object_title(change),
        "changes": change.changes,
        "changed_by": person(change.changed_by),
        "first_changed_at": change.first_changed_at.isoformat(),
        "due_at": change.due_at.isoformat(),
        "waiting_reason": change.waiting_reason,
    }


def run_row(run: Run) -> dict[str, Any]:
    return {
        "id": run.pk,
        "status": run.status,
        "waiting_for_budget": waiting_for_budget(run),
        "published_by": person(run.created_by),
        "created_at": run.created_at.isoformat(),
    }


def event_row(event: SyncEvent) -> dict[str, Any]:
    return {
        "kind": event.kind,
        "object": event.object_repr,
        "by": person(event.user),
        "at": event.created_at.isoformat(),
    }


def sync_status() -> dict[str, Any]:
    conf = get_settings()
    configurations = SyncConfiguration.objects.select_related(
        "site", "root_page", "site__root_page"
    ).prefetch_related("target_locales")
    changes = PendingChange.objects.select_related("content_type", "changed_by")
    runs = Run.objects.filter(origin=RunOrigin.AUTOMATIC).select_related("created_by")
    events = SyncEvent.objects.select_related("user")
    return {
        "enabled": conf.SYNC_ENABLED,
        "paused": sync_paused(),
        "window_seconds": conf.SYNC_WINDOW_SECONDS,
        "publish_policy": conf.SYNC_PUBLISH_POLICY,
        "on_source_removed": conf.SYNC_ON_SOURCE_REMOVED,
        "now": timezone.now().isoformat(),
        "configurations": [configuration_row(c) for c in configurations],
        "pending": [pending_row(c) for c in changes[:100]],
        "pending_total": changes.count(),
        "recent_runs": [run_row(r) for r in runs[:RECENT]],
        "active_runs": runs.filter(status__in=RunStatus.active).count(),
        "events": [event_row(e) for e in events[:RECENT]],
    }
