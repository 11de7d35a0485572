"""Two editors promote the same canary at the same instant: one full run, one refusal."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest
from django.db import OperationalError, connection
from wagtail.models import Locale

from wagtail_bulk_translate.errors import RunConfigurationError
from wagtail_bulk_translate.models import Run, RunQuerySet, RunStatus
from wagtail_bulk_translate.runs import controls

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def finished_canary(task_queue) -> Run:
    canary = Run.objects.create(
        status=RunStatus.SUCCEEDED,
        canary_size=3,
        # get_or_create: a transactional test before this one may have flushed the locales.
        source_locale=Locale.objects.get_or_create(language_code="en")[0],
        translator_class="tests.translator_doubles.RecordingTranslator",
        scope={"pages": []},
    )
    canary.target_locales.set([Locale.objects.get_or_create(language_code="fr")[0]])
    return canary


def test_two_promotions_at_the_same_instant_create_one_full_run(finished_canary, monkeypatch):
    # Both promotions reach the insert of the full run together, unless the first one keeps
    # the second from even checking the canary until it has committed (the barrier then gives
    # up waiting and lets the first one go on).
    both_at_insert = threading.Barrier(2, timeout=3)
    original_create = RunQuerySet.create

    def create_together(self, **fields):
        with contextlib.suppress(threading.BrokenBarrierError):
            both_at_insert.wait()
        return original_create(self, **fields)

    monkeypatch.setattr(RunQuerySet, "create", create_together)
    outcomes: list[str] = []

    def promote() -> None:
        try:
            outcomes.append(promote_waiting_for_locks(finished_canary.pk))
        finally:
            connection.close()

    threads = [threading.Thread(target=promote) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    [full_run] = Run.objects.filter(promoted_from=finished_canary)
    assert sorted(outcomes) == [
        f"This canary was already promoted to run #{full_run.pk}.",
        "promoted",
    ]


def promote_waiting_for_locks(run_id: int) -> str:
    """Promote as an editor would; what the editor is told.

    A file database (SQLite's busy timeout, PostgreSQL's row locks) makes the second writer
    wait; the tests' shared in-memory SQLite database refuses at once ("database table is
    locked"), so waiting is done here.
    """
    while True:
        try:
            controls.promote_canary(run_id)
        except RunConfigurationError as err:
            return str(err)
        except OperationalError as err:
            if "locked" not in str(err):
                raise
            time.sleep(0.05)
        else:
            return "promoted"
