"""The worker: claims units of a run and takes each claim through the steps, in order.

For each claim (a few whole objects, every claimable locale of each):

1. :mod:`.prepare` loads each source object once, extracts and hashes it, skips what is
   unchanged; :mod:`.plan` decides per locale which strings need a translation;
2. :mod:`.translate` makes one translator call per target locale for the whole claim;
3. :mod:`.write` writes each target in its own transaction, fenced by the unit's lease.

While the claim is processed a :class:`.keepalive.LeaseKeeper` renews its lease from a thread
of its own, so no step, however long, loses it to another worker.

:mod:`.failures` records every exception on its units with a stable code and a readable message.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Now
from wagtail.models import Page

from .. import schedule
from ..conf import get_settings
from ..models import Run, RunStatus, Unit
from ..translators.base import BulkTranslator
from ..translators.loading import build_translator
from . import claims
from .claims import Claim
from .failures import ClaimAborted, guard_errors
from .finish import next_wakeup, try_finish_run
from .keepalive import LeaseKeeper
from .prepare import prepare_object
from .signatures import output_signatures, rule_changes, sign_objects
from .translate import translate_locale
from .work import ObjectWork, UnitWork
from .write import wait_for_parent, write_unit


@dataclass(frozen=True)
class WorkerOutcome:
    units_processed: int
    more_work: bool


def work_and_continue(run_id: int) -> dict[str, Any]:
    """One worker task: process for a time budget, then keep the chain going or end it.

    Work can remain without being claimable right now: units waiting for their parent page or
    a retry back-off, or held by a worker that may have died. The chain then comes back when
    the earliest of those becomes claimable (one such deferred task per run), so a run never
    stalls for want of a task and idle tasks do not multiply. A chain with nothing left to wait
    for ends at once, even while the run is still being enumerated: the coordinator's next
    batch starts a chain for its units, so no chain sits polling for them.
    """
    outcome = process_run(run_id)
    if outcome.more_work:
        schedule.continue_worker(run_id)
    elif not schedule.can_defer():
        # A backend that runs each task at once (ImmediateBackend) cannot wait: re-queuing now
        # would only run again at once with nothing to claim, in a loop. The coordinator's next
        # batch, a retry or the janitor command starts the next chain.
        end_chain(run_id)
    else:
        wake_at = next_wakeup(run_id)
        if wake_at is not None and reserve_wakeup(run_id, wake_at):
            schedule.continue_worker(run_id, when=wake_at)
        elif not end_chain_unless_claimable(run_id):
            # The coordinator committed units after this chain last looked, while it still
            # counted this chain as running (so it started none for them): carry on.
            schedule.continue_worker(run_id)
    return {"units_processed": outcome.units_processed, "more_work": outcome.more_work}


def end_chain(run_id: int) -> None:
    Run.objects.filter(pk=run_id, worker_chains__gt=0).update(worker_chains=F("worker_chains") - 1)


def end_chain_unless_claimable(run_id: int) -> bool:
    """End this chain unless the run is running and has units claimable now; True when it ended.

    Checked under the run row's lock, the one the coordinator takes to count chains when it
    commits a batch: either the coordinator sees this chain gone and starts one for its
    units, or this chain sees those units and keeps going. Never neither.
    """
    with transaction.atomic():
        running = Run.objects.select_for_update().filter(pk=run_id, status=RunStatus.RUNNING)
        if running.exists() and Unit.objects.filter(run_id=run_id).claimable().exists():
            return False
        end_chain(run_id)
    return True


def reserve_wakeup(run_id: int, when: Any) -> bool:
    """Only one deferred worker task per run: reserve the wake-up unless an earlier one is."""
    earlier_pending = Q(wakeup_at__gte=Now()) & Q(wakeup_at__lte=when)
    return bool(Run.objects.filter(pk=run_id).exclude(earlier_pending).update(wakeup_at=when))


def process_run(run_id: int, time_budget: float | None = None) -> WorkerOutcome:
    """Claim and process units of a run until none are claimable or the budget is spent.

    A transient provider failure ends the loop early: the failed units come back after their
    back-off, and so does this task (a run-wide back-off instead of hammering the provider).
    """
    conf = get_settings()
    budget = conf.WORKER_TIME_BUDGET_SECONDS if time_budget is None else time_budget
    deadline = time.monotonic() + budget
    run = Run.objects.select_related("source_locale", "created_by").get(pk=run_id)
    translator = build_translator(run.translator_class, run.translator_options)
    processed = 0
    while time.monotonic() < deadline:
        token, units = claims.claim_units(run_id, conf.UNITS_PER_CLAIM)
        if not units:
            break
        claim = Claim(run, token)
        try:
            with LeaseKeeper(token):
                process_claim(claim, translator, units)
        except ClaimAborted:
            claims.release_claim(token)
            return WorkerOutcome(processed, more_work=False)
        processed += len(units)
        if claim.transient_failures:
            return WorkerOutcome(processed, more_work=False)
    else:
        return WorkerOutcome(processed, more_work=True)
    try_finish_run(run_id)
    return WorkerOutcome(processed, more_work=False)


def process_claim(claim: Claim, translator: BulkTranslator, units: list[Unit]) -> None:
    """Prepare every object, then translate and write the units in waves: a new page whose
    parent page is in the claim goes in the wave after its parent's, so its texts are sent
    only once the parent is written (a parent that fails costs nothing for its children)."""
    run, token = claim.run, claim.token
    objects = group_by_object(units)
    locale_ids = {u.target_locale_id for u in units}
    sign_objects(
        objects, output_signatures(run, translator, locale_ids), rule_changes(run, locale_ids)
    )
    for obj in objects:
        guard_errors(claim, obj.units, partial(prepare_object, run, token, obj))
    parents = parents_in_claim(objects)
    waiting = [(obj, work) for obj in objects for work in obj.open_units()]
    while waiting:
        wave = [(o, w) for o, w in waiting if id(w) not in parents or parents[id(w)].done]
        wave = wave or waiting  # (a parent left open cannot hold its children forever)
        in_wave = {id(w) for _o, w in wave}
        waiting = [(o, w) for o, w in waiting if id(w) not in in_wave]
        process_wave(claim, translator, wave)


def process_wave(
    claim: Claim, translator: BulkTranslator, wave: list[tuple[ObjectWork, UnitWork]]
) -> None:
    run, token = claim.run, claim.token
    for obj, work in wave:
        if not work.done and work.needs.to_translate:
            # Nothing is sent for a page that would wait for its parent, or be skipped.
            guard_errors(claim, [work], partial(check_parent, run, token, obj, work))
    for works in pending_by_locale([work for _obj, work in wave]).values():
        claim.keep_lease()
        guard_errors(claim, works, partial(translate_locale, run, translator, works))
    for obj, work in wave:
        if not work.done:
            claim.keep_lease()
            guard_errors(claim, [work], partial(write_unit, run, token, obj, work))


def check_parent(run: Run, token: str, obj: ObjectWork, work: UnitWork) -> None:
    wait_for_parent(run, token, obj, work)


def parents_in_claim(objects: list[ObjectWork]) -> dict[int, UnitWork]:
    """{id of a unit: the unit of its parent page in the same locale}, both in this claim."""
    by_path = {
        (obj.instance.path, work.unit.target_locale_id): work
        for obj in objects
        if isinstance(obj.instance, Page)
        for work in obj.open_units()
    }
    parents: dict[int, UnitWork] = {}
    for (path, locale_id), work in by_path.items():
        parent = by_path.get((path[: -Page.steplen], locale_id))
        if parent is not None:
            parents[id(work)] = parent
    return parents


def group_by_object(units: list[Unit]) -> list[ObjectWork]:
    grouped: dict[int, ObjectWork] = {}
    for unit in units:
        obj = grouped.setdefault(unit.position, ObjectWork(units=[]))
        obj.units.append(UnitWork(unit, source=obj))
    return list(grouped.values())


def pending_by_locale(works: list[UnitWork]) -> dict[int, list[UnitWork]]:
    by_locale: dict[int, list[UnitWork]] = defaultdict(list)
    for work in works:
        if not work.done and work.needs.to_translate:
            by_locale[work.unit.target_locale_id].append(work)
    return by_locale
