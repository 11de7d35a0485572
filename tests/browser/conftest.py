"""Browser tests: Playwright driving Debian's chromium against a live demo site with a real worker.

One demo site per session, in a SQLite file of a temporary directory: migrated and seeded once,
served by ``runserver --noreload`` on a free port, translated by one real ``db_worker``
process. Chromium is never downloaded: the tests drive ``/usr/bin/chromium`` (``CHROMIUM``
overrides it) and fail, not skip, when it is missing. Waits are bounded generously and poll
the page, never fixed sleeps: CI runs them on two loaded cores.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.helpers import MANAGE, ROOT, manage, start_workers, stop_workers

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The docs' screenshots are rewritten only on request (UPDATE_SCREENSHOTS=1), so a test run
# leaves the working tree clean; otherwise they go to a temporary directory.
README_SCREENSHOTS = ROOT / "docs" / "screenshots"
DEMO_PAGES = 30
# The demo editor (not a superuser): the admin as the people who start runs see it.
USERNAME, PASSWORD = "editor", "changeme"
# Bounds, not sleeps: how long a page may take to answer, and a run to finish.
PAGE_TIMEOUT_MS = 60_000
RUN_TIMEOUT_MS = 240_000
SERVER_START_SECONDS = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveSite:
    """The demo site served by a real server process, with a real worker beside it."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.db_path = directory / "browser.sqlite3"
        self.hold_file = directory / "hold-translator"
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        translator = {
            "CLASS": "tests.browser.translators.HoldingTranslator",
            "OPTIONS": {"HOLD_FILE": str(self.hold_file)},
        }
        self.env = {
            **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
            "DJANGO_SETTINGS_MODULE": "tests.browser.settings",
            "SQLITE_PATH": str(self.db_path),
            "DEBUG": "1",  # runserver serves the admin's static files
            # Automatic sync is on, for the sites its test configures (none otherwise).
            "WBT_SETTINGS": json.dumps(
                {
                    "TRANSLATOR": translator,
                    "CONFIRM_ABOVE_COST": None,
                    "SYNC_ENABLED": True,
                    "SYNC_WINDOW_SECONDS": 3,
                }
            ),
        }
        self.processes: list[subprocess.Popen] = []

    def url(self, path: str) -> str:
        return self.base_url + path

    def start(self) -> None:
        manage(self.env, "migrate", "--verbosity", "0")
        manage(self.env, "seed_demo", "--pages", str(DEMO_PAGES))
        log = open(self.directory / "runserver.log", "w")  # noqa: SIM115 (closed with the process)
        self.processes.append(
            subprocess.Popen(
                [*MANAGE, "runserver", f"127.0.0.1:{self.port}", "--noreload"],
                env=self.env,
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        self.processes += start_workers(self.env, 1, log_dir=self.directory)
        self.wait_until_serving()

    def wait_until_serving(self) -> None:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline:
            if self.processes[0].poll() is not None:
                raise AssertionError(f"runserver exited:\n{self.server_log()}")
            try:
                with urllib.request.urlopen(self.url("/admin/login/"), timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.5)  # polling the port, not waiting for an outcome
        raise AssertionError(f"runserver did not answer in {SERVER_START_SECONDS}s")

    def server_log(self) -> str:
        return (self.directory / "runserver.log").read_text(errors="replace")[-5000:]

    def stop(self) -> None:
        self.hold_file.unlink(missing_ok=True)
        stop_workers(self.processes)

    def query(self, sql: str, *params) -> list[tuple]:
        """Read the site's database directly (fast assertions on what the admin did)."""
        with sqlite3.connect(self.db_path, timeout=30) as conn:
            return conn.execute(sql, params).fetchall()

    def latest_run(self) -> tuple[int, str]:
        return self.query(
            "SELECT id, status FROM wagtail_bulk_translate_run ORDER BY id DESC LIMIT 1"
        )[0]

    def page_id(self, title: str, locale: str = "en") -> int:
        return self.query(
            "SELECT p.id FROM wagtailcore_page p JOIN wagtailcore_locale l ON p.locale_id = l.id "
            "WHERE p.title = ? AND l.language_code = ? ORDER BY p.path LIMIT 1",
            title,
            locale,
        )[0][0]


@pytest.fixture(scope="session")
def live_site(tmp_path_factory):
    site = LiveSite(tmp_path_factory.mktemp("browser-site"))
    try:
        site.start()
        yield site
    finally:
        site.stop()


@pytest.fixture(scope="session")
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is not installed at {CHROMIUM}: `apt-get install -y chromium` (.ci/run "
            "does it), or point CHROMIUM at a Chromium binary. Playwright's own browser "
            "downloads are not used."
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def log_in(page, site: LiveSite) -> None:
    page.goto(site.url("/admin/login/"))
    page.fill("#id_username", USERNAME)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(site.url("/admin/"))


@pytest.fixture(scope="session")
def logged_in_state(chromium, live_site, tmp_path_factory) -> str:
    """Cookies of the logged-in editor, so each test starts signed in without the form."""
    path = str(tmp_path_factory.mktemp("browser-state") / "state.json")
    context = chromium.new_context()
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    log_in(page, live_site)
    context.storage_state(path=path)
    context.close()
    return path


@pytest.fixture
def editor_page(chromium, logged_in_state):
    context = chromium.new_context(
        storage_state=logged_in_state, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    yield page
    context.close()


@pytest.fixture(scope="session")
def screenshot(tmp_path_factory):
    """``screenshot(page, name)``: saves <name>.png of a main screen (the docs' screenshots
    with UPDATE_SCREENSHOTS=1, else a temporary directory).

    Wagtail's admin scrolls inside ``main``, not the document, so a "full page" screenshot
    would stop at the window: the window is stretched to the content's height instead.
    """
    update = os.environ.get("UPDATE_SCREENSHOTS") == "1"
    directory = README_SCREENSHOTS if update else tmp_path_factory.mktemp("screenshots")
    directory.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        size = page.viewport_size
        height = page.evaluate("() => document.querySelector('main')?.scrollHeight ?? 0")
        page.set_viewport_size({"width": size["width"], "height": max(size["height"], height)})
        path = directory / f"{name}.png"
        page.screenshot(path=str(path))
        page.set_viewport_size(size)
        return path

    return take
