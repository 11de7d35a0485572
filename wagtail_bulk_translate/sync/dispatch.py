"""The dispatch: due changes become automatic runs, and nothing is ever dropped.

A change is taken (its row deleted) only in the transaction that creates its run. A change
whose object a run still holds (a unit in flight, across all runs), or whose every syncing site
is paused, stays pending with its reason; a change whose run cannot start (a translator
misconfigured) too. While all automatic translation is paused nothing is dispatched. Whatever
stays is dispatched again: soon by a retry this task queues (a run holding the object), by the
janitor's sweep if that task is lost, and at once on resume.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models.functions import Now
from django.utils.translation import gettext as _
from wagtail.models import Locale, Page

from .. import schedule
from ..conf import get_settings
from ..errors import BulkTranslateError
from ..models import (
    PendingChange,
    Run,
    RunOrigin,
    RunStatus,
    SyncConfiguration,
    Unit,
    UnitStatus,
)
from ..objects import find_by_content_type
from ..runs.start import start_run
from ..scope.definition import model_label
from .configuration import Coverage, coverage, enabled_configurations
from .pending import claim_next_dispatch, sync_paused

logger = logging.getLogger(__name__)

# Source locale, targets, who published, and the (unpaused) site configurations it serves.
GroupKey = tuple[int, tuple[int, ...], int | None, tuple[int, ...]]


@dataclass
class DispatchReport:
    runs_started: list[int] = field(default_factory=list)
    dispatched: int = 0
    waiting: int = 0
    dropped: int = 0
    paused: bool = False

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def dispatch_due_changes() -> DispatchReport:
    """Start one automatic run per (source locale, target locales, publisher, sites) for the changes
    whose window has passed. Row locks (SKIP LOCKED on PostgreSQL; SQLite's write lock) keep
    two dispatches from starting a run for the same change."""
    report = DispatchReport()
    if sync_paused():
        report.paused = True
        return report
    configurations = enabled_configurations(with_locales=True)
    with transaction.atomic():
        due = list(
            PendingChange.objects.filter(due_at__lte=Now())
            .select_for_update(skip_locked=True)
            .order_by("due_at", "pk")
        )
        groups = sort_changes(due, configurations, report)
        for key, changes in groups.items():
            start_group(key, changes, report)
    if report.waiting:
        retry_waiting_later()
    return report


def sort_changes(
    due: list[PendingChange], configurations: list[SyncConfiguration], report: DispatchReport
) -> dict[GroupKey, list[tuple[PendingChange, Any]]]:
    held = held_object_keys([change.object_key for change in due])
    groups: dict[GroupKey, list[tuple[PendingChange, Any]]] = defaultdict(list)
    for change in due:
        instance = find_by_content_type(change.content_type_id, change.object_id)
        covered = coverage(instance, configurations) if instance is not None else None
        if covered is None:
            change.delete()  # deleted, or no longer synced: nothing to translate
            report.dropped += 1
        elif change.object_key in held:
            wait(change, _("Run #%(run)d is translating it; it follows once that run ends.")
                 % {"run": held[change.object_key]}, report)  # fmt: skip
        elif covered.all_paused:
            wait(change, paused_reason(covered), report, held_by_pause=True)
        elif not covered.target_locale_ids():
            change.delete()  # its sites sync into no locale: nothing to translate
            report.dropped += 1
        else:
            targets = tuple(sorted(covered.target_locale_ids()))
            sites = tuple(sorted(c.pk for c in covered.configurations if not c.paused))
            groups[(change.source_locale_id, targets, change.changed_by_id, sites)].append(
                (change, instance)
            )
    return groups


def held_object_keys(keys: list[Any]) -> dict[Any, int]:
    """Objects with a unit in flight in an active run (and which run): wait for it to end."""
    in_flight = Unit.objects.filter(
        object_key__in=keys, status__in=UnitStatus.in_flight, run__status__in=RunStatus.active
    )
    return dict(in_flight.values_list("object_key", "run_id"))


def paused_reason(covered: Coverage) -> str:
    sites = ", ".join(str(c.site) for c in covered.configurations)
    return _("Automatic sync is paused for %(sites)s.") % {"sites": sites}


def wait(change: PendingChange, reason: str, report: DispatchReport, **fields: Any) -> None:
    PendingChange.objects.filter(pk=change.pk).update(waiting_reason=reason, **fields)
    report.waiting += 1


def start_group(
    key: GroupKey, changes: list[tuple[PendingChange, Any]], report: DispatchReport
) -> None:
    _source, targets, _publisher, sites = key  # the changes' own source locale and publisher
    objects = [[scope_label(obj), str(obj.pk)] for _change, obj in changes]
    try:
        with transaction.atomic():
            run = start_run(
                scope={"objects": objects},
                source_locale=changes[0][0].source_locale,
                target_locales=list(Locale.objects.filter(pk__in=targets)),
                publish_policy=get_settings().SYNC_PUBLISH_POLICY,
                user=changes[0][0].changed_by,
                origin=RunOrigin.AUTOMATIC,
            )
            run.sync_configurations.set(sites)
            PendingChange.objects.filter(pk__in=[c.pk for c, _obj in changes]).delete()
    except BulkTranslateError as err:
        logger.warning("Automatic sync could not start a run: %s", err)
        for change, _obj in changes:
            wait(change, _("The run could not start: %(why)s") % {"why": err}, report)
        return
    logger.info("Automatic sync started run #%s for %d change(s)", run.pk, len(changes))
    report.runs_started.append(run.pk)
    report.dispatched += len(changes)


def scope_label(instance: Any) -> str:
    return "wagtailcore.Page" if isinstance(instance, Page) else model_label(type(instance))


def retry_seconds() -> float:
    return max(1.0, min(get_settings().SYNC_WINDOW_SECONDS, 30.0))


def retry_waiting_later() -> None:
    """Changes left waiting for a run: look again soon (one queued retry at a time)."""
    seconds = retry_seconds()
    if claim_next_dispatch(seconds):
        transaction.on_commit(
            lambda: schedule.dispatch_sync_changes(when=schedule.in_seconds(seconds))
        )


def automatic_runs() -> Any:
    return Run.objects.filter(origin=RunOrigin.AUTOMATIC)
