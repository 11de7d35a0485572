"""Pausing and resuming automatic translation: everywhere (one switch) or for one site.

Pausing all also pauses the automatic runs in progress (units in flight finish); changes keep
being recorded. Pausing a site holds its changes back and pauses its automatic runs in progress
that serve no other site still syncing (a run serving two sites goes on while one of them
syncs). Resuming resumes the runs a switch paused (not those paused for quota, budget or by an
editor) unless the other switch still holds them, and dispatches the changes remembered
meanwhile at once. Every switch is written to Wagtail's audit log.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from wagtail.log_actions import log

from .. import schedule
from ..engine.pauses import pause_run, resume_run
from ..models import PendingChange, Run, RunOrigin, RunStatus, SyncConfiguration, SyncSwitch
from ..users import signed_in_user

PREFIX = "wagtail_bulk_translate.sync"
PAUSED = f"{PREFIX}.paused"
RESUMED = f"{PREFIX}.resumed"
SITE_PAUSED = f"{PREFIX}.site_paused"
SITE_RESUMED = f"{PREFIX}.site_resumed"

PAUSED_RUN_MESSAGE = (
    "All automatic translation is paused (Bulk translation → Automatic sync); the run goes on "
    "when it is resumed."
)
SITE_PAUSED_RUN_MESSAGE = (
    "Automatic sync of the run's site is paused (Bulk translation → Automatic sync); the run "
    "goes on when the site is resumed."
)


def switch_row() -> SyncSwitch:
    return SyncSwitch.objects.get_or_create(pk=1)[0]


def pause_all(user: Any = None) -> int:
    """Pause all automatic translation; returns how many automatic runs were paused."""
    with transaction.atomic():
        switch = switch_row()
        SyncSwitch.objects.filter(pk=1).update(
            paused=True, changed_at=timezone.now(), changed_by=signed_in_user(user)
        )
        running = Run.objects.in_progress().filter(origin=RunOrigin.AUTOMATIC)
        paused = sum(
            pause_run(pk, message=PAUSED_RUN_MESSAGE) for pk in running.values_list("pk", flat=True)
        )
        log(instance=switch, action=PAUSED, user=signed_in_user(user), data={"runs_paused": paused})
    return paused


def resume_all(user: Any = None) -> int:
    """Resume automatic translation; returns how many automatic runs resumed. A run whose every
    site is paused stays paused, now held by its sites."""
    with transaction.atomic():
        switch = switch_row()
        SyncSwitch.objects.filter(pk=1).update(
            paused=False, changed_at=timezone.now(), changed_by=signed_in_user(user)
        )
        resumed = 0
        for run in held_runs(PAUSED_RUN_MESSAGE, SITE_PAUSED_RUN_MESSAGE):
            if every_site_paused(run):
                Run.objects.filter(pk=run.pk).update(error_message=SITE_PAUSED_RUN_MESSAGE)
            else:
                resumed += resume_run(run.pk)
        log(
            instance=switch,
            action=RESUMED,
            user=signed_in_user(user),
            data={"runs_resumed": resumed},
        )
        transaction.on_commit(schedule.dispatch_sync_changes)
    return resumed


def set_site_paused(configuration_id: int, paused: bool, user: Any = None) -> bool:
    """Pause or resume one site's sync and its automatic runs; False if it already was."""
    with transaction.atomic():
        changed = SyncConfiguration.objects.filter(pk=configuration_id).exclude(paused=paused)
        if not changed.update(paused=paused):
            return False
        configuration = SyncConfiguration.objects.get(pk=configuration_id)
        action = SITE_PAUSED if paused else SITE_RESUMED
        runs = pause_site_runs(configuration) if paused else resume_site_runs(configuration)
        log(
            instance=configuration,
            action=action,
            user=signed_in_user(user),
            data={"runs_paused" if paused else "runs_resumed": runs},
        )
        if not paused:
            PendingChange.objects.filter(held_by_pause=True).update(
                held_by_pause=False, waiting_reason=""
            )
            transaction.on_commit(schedule.dispatch_sync_changes)
    return True


def pause_site_runs(configuration: SyncConfiguration) -> int:
    running = Run.objects.in_progress().filter(
        origin=RunOrigin.AUTOMATIC, sync_configurations=configuration
    )
    return sum(
        pause_run(run.pk, message=SITE_PAUSED_RUN_MESSAGE)
        for run in running.prefetch_related("sync_configurations")
        if every_site_paused(run)
    )


def resume_site_runs(configuration: SyncConfiguration) -> int:
    if switch_row().paused:
        return 0  # resuming all will
    held = held_runs(SITE_PAUSED_RUN_MESSAGE).filter(sync_configurations=configuration)
    return sum(resume_run(run.pk) for run in held if not every_site_paused(run))


def held_runs(*messages: str) -> Any:
    """Automatic runs paused by a switch (not for quota, budget or by an editor)."""
    return (
        Run.objects.filter(
            origin=RunOrigin.AUTOMATIC,
            status=RunStatus.PAUSED,
            error_code="",
            error_message__in=messages,
        )
        .distinct()
        .prefetch_related("sync_configurations")
    )


def every_site_paused(run: Run) -> bool:
    """Whether every site the run serves is paused (a run of no site: never)."""
    sites = list(run.sync_configurations.all())
    return bool(sites) and all(site.paused for site in sites)
