"""One unit kills every worker that processes it, among many healthy ones.

Its claims die with their worker again and again; each time the claim's units come back in
claims of half the size, until the poison unit is alone. Only it fails, with ``lease_expired``;
every unit that merely shared a claim with it succeeds.
"""

from __future__ import annotations

import json

from tests.e2e.helpers import WorkerPool, manage, run_with_pool

LEAF_PAGE_KEY = """
from wagtail.models import Page
leaf = Page.objects.filter(depth__gt=2, numchild=0, locale__language_code="en").order_by("path")[3]
print(leaf.translation_key)
"""

FAILED_UNITS = """
import json
from wagtail_bulk_translate.models import Unit
print(json.dumps([
    [str(u.object_key), u.target_locale.language_code, u.error_code, u.error_message]
    for u in Unit.objects.filter(status="failed")
]))
"""


def test_only_the_unit_that_kills_its_worker_fails(crash_env):
    manage(crash_env, "seed_demo", "--pages", "30")
    poison_key = manage(crash_env, "shell", "--no-imports", "-c", LEAF_PAGE_KEY).stdout.strip()
    overrides = json.loads(crash_env["WBT_SETTINGS"])
    crash_env.update(
        WBT_CRASH_AT="poison",
        WBT_POISON=f"{poison_key}:fr",
        WBT_SETTINGS=json.dumps({**overrides, "MAX_ATTEMPTS": 3}),
    )

    pool = WorkerPool(crash_env, size=2)
    try:
        summary = run_with_pool(crash_env, pool, timeout=300)
    finally:
        pool.stop()

    assert pool.deaths >= 3, "the poison unit must have killed its worker alone 3 times"
    assert summary["status"] == "partial", summary
    assert summary["units"]["failed"] == 1, summary
    assert summary["units"]["succeeded"] == summary["units_total"] - 1, summary
    failed = json.loads(manage(crash_env, "shell", "--no-imports", "-c", FAILED_UNITS).stdout)
    [(key, code, error_code, message)] = failed
    assert (key, code, error_code) == (poison_key, "fr", "lease_expired")
    assert "died every time it was processed alone" in message
