"""In a real browser, as the demo's editor: the Budgets screen shows the default cap on
automatic sync; the editor lowers it below the next change, a publish's automatic run waits for
budget (the sync screen says so), and raising the cap on the Budgets screen lets it finish."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import RUN_TIMEOUT_MS
from tests.browser.flows import wait_for_run
from tests.browser.test_sync import open_sync_screen
from tests.e2e.helpers import manage

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

SYNC_INTO_GERMAN_AND_PUBLISH = """
from django.contrib.auth import get_user_model
from wagtail.models import Locale, Page, Site
from wagtail_bulk_translate.models import SyncConfiguration
configuration = SyncConfiguration.objects.create(site=Site.objects.get(is_default_site=True))
configuration.target_locales.set([Locale.objects.get(language_code="de")])
page = Page.objects.get(pk={pk}).specific
editor = get_user_model().objects.get(username="editor")
page.title = "Press room"
page.save_revision(user=editor).publish(user=editor)
"""


def open_budgets(page, live_site) -> None:
    page.goto(live_site.url("/admin/"))
    page.get_by_role("navigation", name="Main menu").get_by_role("link", name="Budgets").click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/budgets/$"))


def automatic_run_paused_for_budget(live_site, timeout_ms: int = RUN_TIMEOUT_MS) -> int:
    deadline = time.monotonic() + timeout_ms / 1000
    rows: list[tuple] = []
    while time.monotonic() < deadline:
        rows = live_site.query(
            "SELECT id, status, error_code FROM wagtail_bulk_translate_run "
            "WHERE origin = 'automatic' ORDER BY id DESC LIMIT 1"
        )
        if rows and rows[0][1:] == ("paused", "budget_exceeded"):
            return rows[0][0]
        time.sleep(0.5)
    raise AssertionError(f"No automatic run paused for budget: {rows}")


def save_cap(page, characters: str) -> None:
    page.fill("#id_characters", characters)
    page.get_by_role("button", name=re.compile(r"^(Save|Create)$")).first.click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/budgets/$"))


def test_editor_lowers_the_automatic_cap_sees_a_change_wait_then_raises_it(
    editor_page, live_site, screenshot
):
    page = editor_page
    article = live_site.page_id("Press")  # a page no other browser test looks up
    try:
        open_budgets(page, live_site)
        caps = page.locator("[data-bt-caps-in-force]")
        row = caps.get_by_role("row", name=re.compile("The daily cap on automatic runs"))
        expect(row).to_contain_text("Settings")
        expect(row).to_contain_text("of 100,000 characters left today")
        screenshot(page, "budgets")

        row.get_by_role("link", name="Change").click()
        expect(page.locator("#id_period")).to_have_value("daily")
        expect(page.locator("#id_origin")).to_have_value("automatic")
        save_cap(page, "5")
        expect(row).to_contain_text("Here")
        expect(row).to_contain_text("of 5 characters left today")

        manage(live_site.env, "shell", "--no-imports", "-c",
               SYNC_INTO_GERMAN_AND_PUBLISH.format(pk=article))  # fmt: skip
        run_id = automatic_run_paused_for_budget(live_site)
        open_sync_screen(page, live_site)
        expect(page.locator("[data-bt-sync-runs]")).to_contain_text("waiting for budget")

        open_budgets(page, live_site)
        page.locator("table.listing").last.get_by_role(
            "link", name="The daily cap on automatic runs"
        ).click()
        save_cap(page, "1000000")
        assert wait_for_run(live_site, run_id) == "succeeded"
    finally:
        live_site.query("DELETE FROM wagtail_bulk_translate_budgetcap")
        live_site.query("DELETE FROM wagtail_bulk_translate_syncconfiguration_target_locales")
        live_site.query("DELETE FROM wagtail_bulk_translate_syncconfiguration")
