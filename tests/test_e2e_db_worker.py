"""End to end with real processes: the demo site, the CLI and several real ``db_worker``s.

Each test gets its own database (a SQLite file, or a fresh PostgreSQL database when
DATABASE_URL is set) because the worker processes cannot see pytest's test transaction.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MANAGE = [sys.executable, str(ROOT / "sandbox" / "manage.py")]
pytestmark = pytest.mark.e2e


@pytest.fixture
def site_env(tmp_path):
    """Environment variables pointing the sandbox at a brand-new database."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    base_url = os.environ.get("DATABASE_URL")
    if not base_url:
        env["SQLITE_PATH"] = str(tmp_path / "e2e.sqlite3")
        yield env
        return
    import psycopg

    name = f"wbt_e2e_{uuid.uuid4().hex[:10]}"
    admin_url = base_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    env["DATABASE_URL"] = base_url.rsplit("/", 1)[0] + f"/{name}"
    yield env
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(env, *args, check=True, timeout=300) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [*MANAGE, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"{args} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
        )
    return result


def start_workers(env, count: int) -> list[subprocess.Popen]:
    return [
        subprocess.Popen(
            [
                *MANAGE,
                "db_worker",
                "--queue-name",
                "*",
                "--interval",
                "0.2",
                "--no-startup-delay",
                "--no-reload",
                "--worker-id",
                f"e2e-{i}",
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(count)
    ]


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()


def wait_for_run(env, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        summary = json.loads(manage(env, "bulk_translate", "status", "--json").stdout)
        if summary["status"] not in ("pending", "running"):
            return summary
        time.sleep(1)
    raise AssertionError(f"Run did not finish in {timeout}s: {summary}")


SITE_REPORT = """
import json
from django.test import Client
from wagtail.blocks import StreamValue, StructValue
from wagtail.blocks.list_block import ListValue
from wagtail.models import Locale, Page

def shape(value):
    if isinstance(value, StreamValue):
        return [[child.block_type, shape(child.value)] for child in value]
    if isinstance(value, StructValue):
        return {name: shape(child) for name, child in value.items()}
    if isinstance(value, ListValue):
        return [shape(child) for child in value]
    return type(value).__name__

client = Client()
report = {}
for code in Locale.objects.values_list("language_code", flat=True):
    pages = Page.objects.filter(locale__language_code=code, depth__gt=1, alias_of__isnull=True)
    report[code] = {}
    for page in pages.specific():
        url = page.get_url()
        response = client.get(url) if page.live else None
        report[code][page.translation_key.hex] = {
            "title": page.title,
            "live": page.live,
            "url": url,
            "status": response.status_code if response else None,
            "body": shape(getattr(page, "body", None)),
        }
print(json.dumps(report))
"""


def test_whole_site_translates_with_real_workers(site_env):
    manage(site_env, "migrate", "--verbosity", "0")
    manage(site_env, "seed_demo", "--pages", "24")
    workers = start_workers(site_env, 2)
    try:
        manage(
            site_env,
            "bulk_translate",
            "start",
            "--all",
            "--locales",
            "fr,de",
            "--publish",
            "mirror",
        )
        summary = wait_for_run(site_env)
    finally:
        stop_workers(workers)
    assert summary["status"] == "succeeded", summary
    assert summary["units"]["failed"] == 0
    assert summary["units"]["succeeded"] == summary["units_total"] > 0
    assert_site_translated(site_env, ("fr", "de"))


def assert_site_translated(env, codes) -> None:
    """Every source page has a translation per locale: translated title, same live status,
    same StreamField structure, a URL under the locale's prefix that renders."""
    report = json.loads(manage(env, "shell", "--no-imports", "-c", SITE_REPORT).stdout)
    for code in codes:
        assert set(report[code]) == set(report["en"]), f"{code} is missing pages"
        for key, source in report["en"].items():
            target = report[code][key]
            assert target["title"] != source["title"]
            assert target["live"] == source["live"]
            assert target["body"] == source["body"], "StreamField structure differs"
            assert f"/{code}/" in target["url"]
            if target["live"]:
                assert target["status"] == 200, target["url"]
