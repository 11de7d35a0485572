"""Two runs started on the same scope at about the same time: each (object, locale) is written
by one of them only, and the other says why it skipped it.

The in-flight constraint keeps two runs from holding the same (object, locale) at once; these
tests cover what it cannot see: the first run already finished the unit by the time the second
run enumerates the object.
"""

from __future__ import annotations

import pytest

from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import Run, RunStatus, Unit, UnitStatus

pytestmark = pytest.mark.django_db


def run_tasks_of(task_queue, run: Run) -> None:
    """Run the queued tasks of one run only, until it has none left."""
    while True:
        results = task_queue.backend.results
        index = next((i for i, r in enumerate(results) if r.args[:1] == [run.pk]), None)
        if index is None:
            return
        result = results.pop(index)
        with task_queue.capture_on_commit(execute=True):
            result.task.func(*result.args, **result.kwargs)


def test_an_object_the_first_run_already_translated_is_skipped_by_the_second(
    site, begin, task_queue, recording_translator
):
    first = begin(mode="refresh")
    second = begin(mode="refresh")  # started before the first ended: they overlap
    run_tasks_of(task_queue, first)
    first.refresh_from_db()
    assert first.status == RunStatus.SUCCEEDED
    recording_translator.reset()

    run_tasks_of(task_queue, second)

    second.refresh_from_db()
    assert second.status == RunStatus.SUCCEEDED
    units = Unit.objects.filter(run=second)
    assert {u.status for u in units} == {UnitStatus.SKIPPED}
    for unit in units:
        assert unit.error_code == ErrorCode.DUPLICATE_IN_FLIGHT
        assert f"Run #{first.pk}" in unit.error_message
    assert recording_translator.calls == []


def test_a_run_started_after_the_first_ended_translates_again(
    site, begin, task_queue, recording_translator
):
    first = begin(mode="refresh")
    run_tasks_of(task_queue, first)
    second = begin(mode="refresh")  # a deliberate second refresh

    run_tasks_of(task_queue, second)

    assert {u.status for u in Unit.objects.filter(run=second)} == {UnitStatus.SUCCEEDED}
