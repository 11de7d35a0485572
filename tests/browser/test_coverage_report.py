"""In a real browser: the translation coverage report, reached from the Reports menu, and its
button that opens the new-run form pre-filled with what is missing or outdated."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


def test_coverage_report_prefills_a_new_run(editor_page, live_site, screenshot):
    page = editor_page
    page.goto(live_site.url("/admin/"))
    page.get_by_role("button", name="Reports").click()
    menu = page.get_by_role("navigation", name="Main menu")
    menu.get_by_role("link", name="Translation coverage").click()
    page.wait_for_url(re.compile(r"/admin/reports/translation-coverage/$"))

    table = page.locator("table.listing")
    articles_fr = table.locator("tr", has_text="Article page").filter(has_text="French").first
    expect(articles_fr).to_be_visible()
    expect(page.get_by_text("unknown").first).to_be_visible()  # Category keeps no revisions
    # Live translations and drafts are counted apart; a row's Translate fills its type only.
    headers = table.locator("thead")
    expect(headers).to_contain_text("Up to date, live")
    expect(headers).to_contain_text("Drafts to publish")
    row_link = articles_fr.get_by_role("link", name="Translate")
    if row_link.count():
        assert "page_types=demo.ArticlePage" in row_link.get_attribute("href")
    screenshot(page, "coverage_report")

    page.get_by_role("link", name="Translate what is missing or outdated").click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/new/\?"))
    assert "mode=changed" in page.url and "targets=fr" in page.url
    expect(page.get_by_label("French")).to_be_checked()
    expect(page.get_by_label("Changed content only")).to_be_checked()
