"""Benchmark 10: automatic sync, what a publish costs and how soon it is translated.

The queries of publishing a page with sync off, then on (the first publish of a burst records
the change and queues the dispatch; a later one only bumps the row), counted from the publish
call through its on-commit work; then the wall time from publishing a page to its automatic
run finished, with one real ``db_worker`` idle and waiting (window 0, so only the dispatch, the
coordinator and the unit are timed).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from typing import Any

from django.db import connection
from django.test import override_settings

from .harness import Config, Result, content_pages, counting_queries, ensure_target_locales
from .workers import wait_for_idle_queue, worker_processes

QUERY_TARGET = 5
REPEATS = 5
SYNC_ON = {"SYNC_ENABLED": True, "SYNC_WINDOW_SECONDS": 0}


def run(config: Config) -> list[Result]:
    from django.conf import settings

    page, user = content_pages(1)[0].specific, admin()
    configure_sync(config.targets)
    base = settings.WAGTAIL_BULK_TRANSLATE
    with override_settings(WAGTAIL_BULK_TRANSLATE={**base, "SYNC_ENABLED": False}):
        off = [publish_queries(page, user, f"off {i}") for i in range(REPEATS)]
    with override_settings(WAGTAIL_BULK_TRANSLATE={**base, **SYNC_ON, "SYNC_WINDOW_SECONDS": 3600}):
        first = publish_queries(page, user, "on, first of a burst")
        later = [publish_queries(page, user, f"on, later {i}") for i in range(REPEATS)]
    forget_pending()
    seconds, run_id = publish_to_translated(content_pages(2)[1].specific, user, base)
    baseline = statistics.median(off)
    notes = f"median of {REPEATS} publishes with sync off"
    return [
        Result("10 sync: a publish", "queries, sync on (first of a burst) vs off", first,
               baseline, f"≤ off + {QUERY_TARGET}", first - baseline <= QUERY_TARGET, notes),
        Result("10 sync: a publish", "queries, sync on (later in the burst) vs off",
               statistics.median(later), baseline, f"≤ off + {QUERY_TARGET}",
               statistics.median(later) - baseline <= QUERY_TARGET, notes),
        Result("10 sync: publish to translated", "wall seconds, one idle worker",
               round(seconds, 2), None, "", None,
               f"window 0; run #{run_id}: 1 page into {len(config.targets)} locales, as drafts; "
               "worker polling every 0.1 s"),
    ]  # fmt: skip


def admin() -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="admin")


def configure_sync(targets: list[str]) -> None:
    from wagtail.models import Locale, Site

    from wagtail_bulk_translate.models import SyncConfiguration

    ensure_target_locales(targets)
    site = Site.objects.get(is_default_site=True)
    configuration, _created = SyncConfiguration.objects.get_or_create(site=site)
    configuration.target_locales.set(Locale.objects.filter(language_code__in=targets))


def publish(page: Any, user: Any, title: str) -> None:
    page.title = f"{page.title.split(' [')[0]} [{title}]"
    page.save_revision(user=user).publish(user=user)


def publish_queries(page: Any, user: Any, title: str) -> int:
    with counting_queries() as box:
        publish(page, user, title)
    return box[0]


def forget_pending() -> None:
    from django_tasks_db.models import DBTaskResult

    from wagtail_bulk_translate.models import PendingChange

    PendingChange.objects.all().delete()
    DBTaskResult.objects.filter(task_path__endswith="dispatch_sync_changes").delete()


def publish_to_translated(page: Any, user: Any, base: dict[str, Any]) -> tuple[float, int]:
    """Publish with a worker idle and waiting; seconds until the automatic run finished."""
    os.environ["BENCH_WBT_SETTINGS"] = json.dumps(SYNC_ON)  # the worker's settings
    with (
        override_settings(WAGTAIL_BULK_TRANSLATE={**base, **SYNC_ON}),
        worker_processes(connection.settings_dict["NAME"], 1),
    ):
        wait_for_idle_queue()
        started = time.perf_counter()
        publish(page, user, "synced")
        run_id = wait_for_automatic_run()
        return time.perf_counter() - started, run_id


def wait_for_automatic_run(timeout: float = 600) -> int:
    from wagtail_bulk_translate.models import Run

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.filter(origin="automatic").order_by("-pk").first()
        if run is not None and run.is_finished:
            if run.status != "succeeded":
                raise RuntimeError(f"Automatic run {run.pk} ended {run.status}")
            return run.pk
        time.sleep(0.02)
    raise RuntimeError(f"No automatic run finished in {timeout} s")
