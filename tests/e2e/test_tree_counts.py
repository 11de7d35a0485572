"""Real workers rewriting an existing translated parent while others add children under it:
the parent's child count (treebeard ``numchild``) stays right, with nothing left to repair."""

from __future__ import annotations

import json

from tests.e2e.helpers import WorkerPool, manage, run_progress

ADD_CHILDREN = """
from demo.models import ArticleIndexPage, ArticlePage
index = ArticleIndexPage.objects.filter(locale__language_code="en").order_by("path").first()
for i in range(24):
    page = index.add_child(instance=ArticlePage(title=f"Late story {i}", summary=f"Late {i}."))
    page.save_revision().publish()
print(index.pk)
"""

TREE_REPORT = """
import json
from wagtail.models import Page
from wagtail_bulk_translate.models import Run
wrong = [
    [page.pk, page.numchild, page.get_children().count()]
    for page in Page.objects.all()
    if page.numchild != page.get_children().count()
]
print(json.dumps({
    "wrong": wrong,
    "problems": [len(p) for p in Page.find_problems()],
    "runs": list(Run.objects.order_by("pk").values_list("status", "tree_repairs")),
}))
"""


def wait_for_latest_run(env, pool: WorkerPool, timeout: float) -> None:
    """Until the latest run ends; ``timeout`` bounds a stall (no unit ending), not the run."""
    import time

    status, ended = run_progress(env)
    last_progress = time.monotonic()
    while time.monotonic() - last_progress < timeout:
        pool.restart_dead()
        status, now_ended = run_progress(env)
        if status not in ("pending", "running"):
            return
        if now_ended > ended:
            ended, last_progress = now_ended, time.monotonic()
        time.sleep(0.5)
    raise AssertionError(f"No unit ended for {timeout}s: the run is {status}, {ended} ended")


def test_child_counts_stay_right_when_a_parent_is_rewritten_while_children_are_added(crash_env):
    overrides = json.loads(crash_env["WBT_SETTINGS"])
    crash_env["WBT_SETTINGS"] = json.dumps(
        {**overrides, "LEASE_SECONDS": 300, "UNITS_PER_CLAIM": 2}
    )
    crash_env["WBT_CRASH_AT"] = "slow_parent_write"
    manage(crash_env, "seed_demo", "--pages", "12")
    pool = WorkerPool(crash_env, size=3)
    try:
        manage(
            crash_env, "bulk_translate", "start", "--all", "--locales", "fr", "--publish", "mirror"
        )
        wait_for_latest_run(crash_env, pool, timeout=300)
        manage(crash_env, "shell", "--no-imports", "-c", ADD_CHILDREN)
        # Refresh rewrites the existing French index pages (slowly) while the other workers
        # create their 24 new children under them.
        manage(
            crash_env,
            "bulk_translate",
            "start",
            "--all",
            "--locales",
            "fr",
            "--publish",
            "mirror",
            "--mode",
            "refresh",
        )
        wait_for_latest_run(crash_env, pool, timeout=300)
    finally:
        pool.stop()

    report = json.loads(manage(crash_env, "shell", "--no-imports", "-c", TREE_REPORT).stdout)
    assert report["wrong"] == []
    assert report["problems"] == [0] * 5
    # The writers kept the counts right themselves: the runs' checks had nothing to repair.
    assert report["runs"] == [["succeeded", 0], ["succeeded", 0]]
