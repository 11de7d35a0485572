"""Pausing and resuming automatic translation: everywhere (one switch) or for one site.

Pausing all also pauses the automatic runs in progress (units in flight finish); changes keep
being recorded. Resuming resumes the runs this switch paused (not those paused for quota,
budget or by an editor) and dispatches the changes remembered meanwhile at once. Every switch
is written to Wagtail's audit log.
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
    """Resume automatic translation; returns how many automatic runs resumed."""
    with transaction.atomic():
        switch = switch_row()
        SyncSwitch.objects.filter(pk=1).update(
            paused=False, changed_at=timezone.now(), changed_by=signed_in_user(user)
        )
        held = runs_paused_by_the_switch().values_list("pk", flat=True)
        resumed = sum(resume_run(pk) for pk in held)
        log(
            instance=switch,
            action=RESUMED,
            user=signed_in_user(user),
            data={"runs_resumed": resumed},
        )
        transaction.on_commit(schedule.dispatch_sync_changes)
    return resumed


def runs_paused_by_the_switch() -> Any:
    return Run.objects.filter(
        origin=RunOrigin.AUTOMATIC,
        status=RunStatus.PAUSED,
        error_code="",
        error_message=PAUSED_RUN_MESSAGE,
    )


def set_site_paused(configuration_id: int, paused: bool, user: Any = None) -> bool:
    """Pause or resume one site's sync; False if it already was."""
    with transaction.atomic():
        changed = SyncConfiguration.objects.filter(pk=configuration_id).exclude(paused=paused)
        if not changed.update(paused=paused):
            return False
        configuration = SyncConfiguration.objects.get(pk=configuration_id)
        action = SITE_PAUSED if paused else SITE_RESUMED
        log(instance=configuration, action=action, user=signed_in_user(user))
        if not paused:
            PendingChange.objects.filter(held_by_pause=True).update(
                held_by_pause=False, waiting_reason=""
            )
            transaction.on_commit(schedule.dispatch_sync_changes)
    return True
