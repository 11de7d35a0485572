"""The worker: claims units of a run and takes each claim through the steps, in order.

For each claim (a few whole objects, every claimable locale of each):

1. :mod:`.prepare` loads each source object once, extracts and hashes it, skips what is
   unchanged; :mod:`.plan` decides per locale which strings need a translation;
2. :mod:`.translate` sends each target locale's texts in requests as full as the translator
   allows, across the claim's objects and tree levels; a claim whose last request per locale is
   not full grows by more objects to fill it (:func:`grow_claim`);
3. :mod:`.write` writes each target in its own transaction, fenced by the unit's lease, parents
   before children.

While the claim is processed a :class:`.keepalive.LeaseKeeper` renews its lease from a thread
of its own, so no step, however long, loses it to another worker.

:mod:`.failures` records every exception on its units with a stable code and a readable message.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import F, Q
from django.db.models.functions import Now
from wagtail.models import Page

from .. import schedule
from ..conf import get_settings
from ..models import Run, RunStatus, Unit
from ..translators.pins import RunTranslators
from . import claims
from .claims import Claim
from .connections import is_connection_lost, reconnect
from .failures import ClaimAborted, guard_errors
from .finish import next_wakeup, try_finish_run
from .keepalive import LeaseKeeper
from .prepare import prepare_object
from .signatures import output_signatures, rule_changes, sign_objects
from .translate import translate_locale
from .work import ObjectWork, UnitWork
from .write import write_unit

logger = logging.getLogger(__name__)

# A worker task reconnects after a lost database connection and retries this many times at
# most (each reconnect waits for the database up to connections.RECONNECT_WAIT_SECONDS): two
# restarts can fall within one claim. More, and the task fails (the janitor starts another).
RECONNECTS_PER_TASK = 3


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
    translators = RunTranslators(run)
    processed = 0
    reconnects = 0
    while time.monotonic() < deadline:
        token = None
        try:
            token, units = claims.claim_units(run_id, conf.UNITS_PER_CLAIM)
            if not units:
                break
            claim = Claim(run, token)
            with LeaseKeeper(token):
                processed += process_claim(claim, translators, units, deadline)
        except ClaimAborted:
            assert token is not None  # raised by process_claim only
            claims.release_claim(token)
            return WorkerOutcome(processed, more_work=False)
        except DatabaseError as err:
            if reconnects >= RECONNECTS_PER_TASK or not is_connection_lost(err):
                raise
            reconnects += 1
            resume_after_lost_connection(run_id, token, err)
            continue
        if claim.transient_failures:
            return WorkerOutcome(processed, more_work=False)
    else:
        return WorkerOutcome(processed, more_work=True)
    try_finish_run(run_id)
    return WorkerOutcome(processed, more_work=False)


def resume_after_lost_connection(run_id: int, token: str | None, err: DatabaseError) -> None:
    """The database went away mid-claim: once it answers again, the claim's open units go back
    to pending, their attempt not counted (what was written stays written, fenced by the lease)."""
    logger.warning("Run %s: database connection lost (%s); reconnecting", run_id, err)
    reconnect()
    if token is not None:
        claims.release_claim(token)


def process_claim(
    claim: Claim, translators: RunTranslators, units: list[Unit], deadline: float | None = None
) -> int:
    """Take a claim through the steps, sending its texts in requests as full as the translator
    allows and writing its objects parents first.

    Translating and writing go in different orders: a locale's texts go out whatever tree
    level their object is at, in full requests only, the last partial request of each locale
    held back while the claim can grow (:func:`grow_claim`) to fill it; each unit is written as
    soon as its texts are in and its parent page in the claim is written. A child whose
    parent is in another worker's claim waits for it at write time (its texts are paid for and
    kept either way). Returns how many units the claim held in the end.
    """
    objects: list[ObjectWork] = []
    add_to_claim(claim, translators, objects, units)
    while True:
        send_texts(claim, translators, objects, hold_tails=True)
        write_ready_units(claim, objects)
        more = grow_claim(claim, objects, deadline)
        if not more:
            break
        add_to_claim(claim, translators, objects, more)
    send_texts(claim, translators, objects, hold_tails=False)
    write_ready_units(claim, objects, final=True)
    return sum(len(obj.units) for obj in objects)


def add_to_claim(
    claim: Claim, translators: RunTranslators, objects: list[ObjectWork], units: list[Unit]
) -> None:
    """Prepare the objects of newly claimed units (signed for their locales) into the claim."""
    run, token = claim.run, claim.token
    added = group_by_object(units)
    locale_ids = {u.target_locale_id for u in units}
    sign_objects(
        added, output_signatures(run, translators, locale_ids), rule_changes(run, locale_ids)
    )
    for obj in added:
        guard_errors(claim, obj.units, partial(prepare_object, run, token, obj))
    objects.extend(added)
    objects.sort(key=lambda obj: obj.units[0].unit.position)


def send_texts(
    claim: Claim, translators: RunTranslators, objects: list[ObjectWork], *, hold_tails: bool
) -> None:
    """Each locale's texts to the translator of the profile the run pinned for it."""
    open_works = [work for obj in objects for work in obj.open_units()]
    for locale_id, works in pending_by_locale(open_works).items():
        claim.keep_lease()
        translator = translators.for_locale(locale_id)
        step = partial(translate_locale, claim.run, translator, works, hold_tail=hold_tails)
        guard_errors(claim, works, step)


def write_ready_units(claim: Claim, objects: list[ObjectWork], *, final: bool = False) -> None:
    """Write the open units whose texts are all in, each once the units it depends on in the
    claim (its parent page, the snippets it chooses; same locale) are done; with ``final``,
    every open unit (dependencies first, as far as they go)."""
    needs = dependencies_in_claim(objects)
    written = True
    while written:
        written = False
        for obj in objects:
            for work in obj.open_units():
                if work.untranslated() and not final:
                    continue
                if any(not other.done for other in needs.get(id(work), ())):
                    continue
                claim.keep_lease()
                guard_errors(claim, [work], partial(write_unit, claim.run, claim.token, obj, work))
                written = True
    if final:
        for obj in objects:
            for work in obj.open_units():  # dependencies that never ended (cannot happen twice)
                guard_errors(claim, [work], partial(write_unit, claim.run, claim.token, obj, work))


def grow_claim(claim: Claim, objects: list[ObjectWork], deadline: float | None) -> list[Unit]:
    """Claim more objects while a locale's last request is not full: their texts fill it.

    Only while the claim holds fewer than ``MAX_UNITS_PER_CLAIM`` open units, the worker's time
    budget lasts, and the claim is not one of the small claims that isolate a unit killing its
    worker (those never grow).
    """
    open_works = [work for obj in objects for work in obj.open_units()]
    waiting = [work for work in open_works if work.untranslated()]
    conf = get_settings()
    if not waiting or len(open_works) >= conf.MAX_UNITS_PER_CLAIM:
        return []
    if deadline is not None and time.monotonic() >= deadline:
        return []
    if any(work.unit.claim_limit is not None for obj in objects for work in obj.units):
        return []
    room = conf.MAX_UNITS_PER_CLAIM - len(open_works)
    _token, units = claims.claim_units(
        claim.run.pk, min(conf.UNITS_PER_CLAIM, room), token=claim.token
    )
    return units


def dependencies_in_claim(objects: list[ObjectWork]) -> dict[int, list[UnitWork]]:
    """{id of a unit: the units of the same locale in this claim it is written after}: its
    parent page (a page is created under its parent's translation) and the objects it refers
    to (a page points to its chosen snippet's translation once that is written)."""
    by_key = {
        (work.unit.object_key, work.unit.target_locale_id): work
        for obj in objects
        for work in obj.open_units()
    }
    by_path = {
        (obj.instance.path, work.unit.target_locale_id): work
        for obj in objects
        if isinstance(obj.instance, Page)
        for work in obj.open_units()
    }
    needs: dict[int, list[UnitWork]] = {}
    for obj in objects:
        for work in obj.open_units():
            locale_id = work.unit.target_locale_id
            found = [by_key.get((key, locale_id)) for key in obj.related_keys]
            if isinstance(obj.instance, Page):
                found.append(by_path.get((obj.instance.path[: -Page.steplen], locale_id)))
            if others := [other for other in found if other is not None and other is not work]:
                needs[id(work)] = others
    return needs


def group_by_object(units: list[Unit]) -> list[ObjectWork]:
    grouped: dict[int, ObjectWork] = {}
    for unit in units:
        obj = grouped.setdefault(unit.position, ObjectWork(units=[]))
        obj.units.append(UnitWork(unit, source=obj))
    return list(grouped.values())


def pending_by_locale(works: list[UnitWork]) -> dict[int, list[UnitWork]]:
    by_locale: dict[int, list[UnitWork]] = defaultdict(list)
    for work in works:
        if not work.done and work.untranslated():
            by_locale[work.unit.target_locale_id].append(work)
    return by_locale
