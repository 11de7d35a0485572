"""In a real browser, as the demo's editor: sync a site into French on the Automatic sync
screen, pause all automatic translation, publish a page three times (from another process,
as the editor), see the change remembered, resume, and see one automatic run translate it."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import RUN_TIMEOUT_MS
from tests.browser.flows import wait_for_run
from tests.e2e.helpers import manage

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

PUBLISH = """
from django.contrib.auth import get_user_model
from wagtail.models import Page
page = Page.objects.get(pk={pk}).specific
editor = get_user_model().objects.get(username="editor")
for i in range(3):
    page.title = f"Kept in sync {{i}}"
    page.save_revision(user=editor).publish(user=editor)
"""


def open_sync_screen(page, live_site) -> None:
    page.goto(live_site.url("/admin/"))
    page.get_by_role("navigation", name="Main menu").get_by_role(
        "link", name="Automatic sync"
    ).click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/sync/$"))


def reload_until(page, locator, text: str, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Reload the screen until ``locator`` shows ``text`` (the run is worked on meanwhile)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        if text in (locator.text_content() or "") if locator.count() else False:
            return
        time.sleep(1)
        page.reload()
    expect(locator).to_contain_text(text)


def new_automatic_run(live_site, after: int, timeout_ms: int = RUN_TIMEOUT_MS) -> int:
    """The first automatic run started after run ``after`` (bounded; polls the database)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        found = live_site.query(
            "SELECT id FROM wagtail_bulk_translate_run WHERE origin = 'automatic' AND id > ? "
            "ORDER BY id LIMIT 1",
            after,
        )
        if found:
            return found[0][0]
        time.sleep(0.5)
    raise AssertionError(f"No automatic run started after run #{after}")


def test_editor_syncs_a_site_pauses_and_catches_up(editor_page, live_site, screenshot):
    page = editor_page
    [(site_id,)] = live_site.query("SELECT id FROM wagtailcore_site WHERE is_default_site = 1")
    [(article,)] = live_site.query(
        "SELECT p.id FROM wagtailcore_page p JOIN wagtailcore_locale l ON p.locale_id = l.id "
        "WHERE p.depth = 4 AND l.language_code = 'en' ORDER BY p.path LIMIT 1"
    )
    [(runs_before,)] = live_site.query(
        "SELECT COALESCE(MAX(id), 0) FROM wagtail_bulk_translate_run"
    )
    try:
        open_sync_screen(page, live_site)
        page.get_by_role("link", name="Sync a site").first.click()
        page.select_option("#id_site", value=str(site_id))
        page.get_by_label("French").check()
        page.get_by_role("button", name="Create", exact=True).click()
        page.wait_for_url(re.compile(r"/admin/bulk-translate/sync/$"))
        expect(page.locator("table.listing")).to_contain_text("fr")

        page.locator("[data-bt-sync-switch]").click()
        expect(page.get_by_text("All automatic translation is paused.").first).to_be_visible()
        manage(live_site.env, "shell", "--no-imports", "-c", PUBLISH.format(pk=article))
        page.reload()
        expect(page.locator("[data-bt-sync-pending]")).to_contain_text("3 publishes, last by Edith")
        screenshot(page, "automatic_sync")

        page.locator("[data-bt-sync-switch]").click()
        expect(page.get_by_text("Automatic translation resumed").first).to_be_visible()
        run_id = new_automatic_run(live_site, after=runs_before)
        assert wait_for_run(live_site, run_id) == "succeeded"
        reload_until(page, page.locator("[data-bt-sync-runs]"), f"Run #{run_id}: succeeded")
        expect(page.locator("[data-bt-sync-runs]")).to_contain_text("published by")

        page.get_by_role("link", name="All automatic runs").click()
        expect(page.locator("[data-bt-automatic-run]").first).to_be_visible()
        automatic = live_site.query(
            "SELECT count(*) FROM wagtail_bulk_translate_run WHERE origin = 'automatic' AND id > ?",
            runs_before,
        )
        assert automatic == [(1,)]  # three publishes, one run
        titles = live_site.query(
            "SELECT count(*) FROM wagtail_bulk_translate_unit u JOIN wagtailcore_page p "
            "ON p.translation_key = u.object_key WHERE p.id = ? AND u.status = 'succeeded' "
            "AND u.run_id = ?",
            article,
            run_id,
        )
        assert titles == [(1,)]  # once, into French
    finally:
        live_site.query("DELETE FROM wagtail_bulk_translate_syncconfiguration_target_locales")
        live_site.query("DELETE FROM wagtail_bulk_translate_syncconfiguration")
        live_site.query("UPDATE wagtail_bulk_translate_syncswitch SET paused = 0")
