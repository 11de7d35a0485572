"""Looking at what a run did: its units per object and status, and the translations it made;
and running its queued tasks until it pauses."""

from __future__ import annotations

from wagtail.models import Page

from wagtail_bulk_translate.models import Run, RunStatus, Unit


def unit_of(run: Run, obj, code: str = "fr") -> Unit:
    return Unit.objects.get(
        run=run, object_key=obj.translation_key, target_locale__language_code=code
    )


def units_of(run: Run, obj) -> list[Unit]:
    return list(Unit.objects.filter(run=run, object_key=obj.translation_key))


def counts(run: Run) -> dict[str, int]:
    """Units per status, statuses without units left out."""
    return {status: n for status, n in run.unit_counts().items() if n}


def translated(obj, code: str) -> bool:
    """Whether ``obj`` (a page or a snippet) has a translation in the locale ``code``."""
    model = Page if isinstance(obj, Page) else type(obj)
    return model.objects.filter(
        translation_key=obj.translation_key, locale__language_code=code
    ).exists()


def run_until_paused(task_queue, run: Run, max_tasks: int = 200) -> Run:
    for _ in range(max_tasks):
        run.refresh_from_db()
        if run.status == RunStatus.PAUSED:
            return run
        assert task_queue.pending(), f"the run ended {run.status} without pausing"
        task_queue.run_next()
    raise AssertionError("the run never paused")
