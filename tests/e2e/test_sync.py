"""Automatic sync end to end: the demo site, a real ``db_worker``, publishes from another
process; three publishes inside the window are translated by one automatic run, once."""

from __future__ import annotations

import json
import time

from tests.e2e.helpers import manage, start_workers, stop_workers

SETUP = """
from wagtail.models import Locale, Site
from wagtail_bulk_translate.models import SyncConfiguration
site = Site.objects.get(is_default_site=True)
configuration, _ = SyncConfiguration.objects.get_or_create(site=site)
configuration.target_locales.set(Locale.objects.filter(language_code__in=["fr", "de"]))
"""

PUBLISH_THREE_TIMES = """
import json
from django.contrib.auth import get_user_model
from wagtail.models import Page
page = Page.objects.filter(locale__language_code="en", depth=4).order_by("path").first().specific
user = get_user_model().objects.get(username="admin")
for i in range(3):
    page.title = f"Synced edit {i}"
    page.save_revision(user=user).publish(user=user)
print(json.dumps({"page": page.pk, "key": str(page.translation_key)}))
"""

REPORT = """
import json
from wagtail.models import Page
from wagtail_bulk_translate.models import PendingChange, Run, Unit
page = Page.objects.get(pk={page})
runs = list(Run.objects.filter(origin="automatic").values("pk", "status", "created_by__username"))
units = list(
    Unit.objects.filter(run__origin="automatic", object_key=page.translation_key)
    .values_list("target_locale__language_code", "status")
)
drafts = {{
    code: page.get_translation(Locale.objects.get(language_code=code))
    .get_latest_revision_as_object().title
    for code in ("fr", "de")
    if page.get_translation_or_none(Locale.objects.get(language_code=code))
}}
print(json.dumps({{"runs": runs, "units": units, "drafts": drafts,
                   "pending": PendingChange.objects.count()}}))
"""


def sync_report(env, page: int) -> dict:
    script = "from wagtail.models import Locale\n" + REPORT.format(page=page)
    return json.loads(manage(env, "shell", "--no-imports", "-c", script).stdout)


def wait_for_automatic_run(env, page: int, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    report = {}
    while time.monotonic() < deadline:
        report = sync_report(env, page)
        if report["runs"] and all(
            r["status"] not in ("pending", "running") for r in report["runs"]
        ):
            return report
        time.sleep(1)
    raise AssertionError(f"No automatic run finished in {timeout}s: {report}")


def test_three_publishes_in_the_window_are_translated_once_by_a_real_worker(site_env):
    site_env["DJANGO_SETTINGS_MODULE"] = "tests.e2e.settings"
    site_env["WBT_SETTINGS"] = json.dumps({"SYNC_ENABLED": True, "SYNC_WINDOW_SECONDS": 4})
    manage(site_env, "seed_demo", "--pages", "12")
    manage(site_env, "shell", "--no-imports", "-c", SETUP)
    workers = start_workers(site_env, 1)
    try:
        published = json.loads(
            manage(site_env, "shell", "--no-imports", "-c", PUBLISH_THREE_TIMES).stdout
        )
        report = wait_for_automatic_run(site_env, published["page"])
    finally:
        stop_workers(workers)

    assert len(report["runs"]) == 1, report
    assert report["runs"][0]["status"] == "succeeded"
    assert report["runs"][0]["created_by__username"] == "admin"
    assert sorted(report["units"]) == [["de", "succeeded"], ["fr", "succeeded"]]
    assert set(report["drafts"]) == {"fr", "de"}
    for title in report["drafts"].values():
        assert title != "Synced edit 2" and "2" in title  # the last edit, translated
    assert report["pending"] == 0
    status = json.loads(manage(site_env, "bulk_translate", "sync", "status", "--json").stdout)
    assert status["recent_runs"][0]["id"] == report["runs"][0]["pk"]
