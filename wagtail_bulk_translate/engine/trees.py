"""After a run: check the page subtrees it wrote, and repair child counts found wrong.

Wagtail's routing and explorer trust treebeard's ``numchild``; a count left too low hides
pages. Writers never save a stale tree row (see ``localize.target_writer.lock_tree_row``), but
other code sharing the tree can still get it wrong, so every run checks what it touched: the
pages it wrote and their parents, set-based (one query per batch of paths).
"""

from __future__ import annotations

import logging

from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from wagtail.models import Page

from ..models import Run, Unit, UnitStatus

logger = logging.getLogger(__name__)

BATCH = 500


def touched_paths(run: Run) -> set[str]:
    """Tree paths of the pages the run wrote, and of their parents."""
    keys = Unit.objects.filter(run_id=run.pk, status=UnitStatus.SUCCEEDED).values("object_key")
    written = Page.objects.filter(
        translation_key__in=keys, locale_id__in=run.target_locales.values("pk")
    ).values_list("path", flat=True)
    paths: set[str] = set()
    for path in written:
        paths.add(path)
        if len(path) > Page.steplen:
            paths.add(path[: -Page.steplen])
    return paths


def real_child_count() -> Coalesce:
    children = (
        Page.objects.filter(path__startswith=OuterRef("path"), depth=OuterRef("depth") + 1)
        .order_by()
        .values("depth")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(children), 0)


def repair_child_counts(paths: list[str]) -> int:
    """Set ``numchild`` to the real number of children where it is wrong; returns how many."""
    repaired = 0
    for start in range(0, len(paths), BATCH):
        wrong = (
            Page.objects.filter(path__in=paths[start : start + BATCH])
            .annotate(real=real_child_count())
            .exclude(numchild=F("real"))
            .values_list("pk", "numchild", "real")
        )
        for pk, stored, real in wrong:
            # A compare-and-set: a writer that changed the count meanwhile keeps its value.
            repaired += Page.objects.filter(pk=pk, numchild=stored).update(numchild=real)
    return repaired


def repair_run_trees(run_id: int) -> int:
    """Check and repair the subtrees a finished run wrote; records the count on the run."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        return 0
    repaired = repair_child_counts(sorted(touched_paths(run)))
    if repaired:
        logger.warning("Run %s: repaired %s wrong page child count(s)", run_id, repaired)
        Run.objects.filter(pk=run_id).update(tree_repairs=F("tree_repairs") + repaired)
    return repaired
