"""In a real browser: log in, then the "Translate…" bulk actions of the page explorer and of a
snippet listing, each starting a run that a real worker finishes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import RUN_TIMEOUT_MS, log_in
from tests.browser.flows import wait_for_run

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


def test_log_in(chromium, live_site):
    context = chromium.new_context()
    page = context.new_page()
    log_in(page, live_site)
    menu = page.get_by_role("navigation", name="Main menu")
    expect(menu.get_by_role("link", name="Bulk translation")).to_be_visible()
    context.close()


def select_rows(page, *titles: str) -> None:
    for title in titles:
        row = page.locator("tr", has=page.get_by_role("link", name=title, exact=True))
        row.locator("input[data-bulk-action-checkbox]").check()


def open_more_bulk_actions(page) -> None:
    """Open the footer's "More" dropdown once Wagtail has wired its links to the selection.

    Wagtail shows four page actions (move, delete, publish, unpublish) and puts the others in
    "More"; it adds the selected ids to those links on ``w-dropdown:shown``, after the opening
    animation, so a click before that event would carry no selection.
    """
    page.evaluate(
        "window.btShown = false;"
        "document.addEventListener('w-dropdown:shown', () => { window.btShown = true; })"
    )
    page.locator("[data-bulk-action-footer]").get_by_role("button", name="More").click()
    page.wait_for_function("window.btShown")


def test_page_bulk_action_translates_a_subtree(editor_page, live_site, screenshot):
    page = editor_page
    home = live_site.page_id("Northwind Journal")
    page.goto(live_site.url(f"/admin/pages/{home}/"))
    select_rows(page, "Field notes")
    open_more_bulk_actions(page)
    page.get_by_role("link", name="Translate the selected pages").click()
    page.wait_for_url(re.compile(r"/admin/bulk/wagtailcore/page/translate/"))

    expect(page.get_by_text("Translate this item from English")).to_be_visible()
    expect(page.get_by_label("Include descendants")).to_be_checked()
    page.get_by_label("French").check()
    page.get_by_label("Start with a canary").uncheck()
    screenshot(page, "bulk_action_form")
    page.get_by_role("button", name="Check what it will translate").click()

    expect(page.get_by_text("Before you start")).to_be_visible()
    expect(page.get_by_role("cell", name="Article pages")).to_be_visible()
    page.get_by_role("button", name="Start the run").click()

    page.wait_for_url(re.compile(r"/admin/bulk-translate/\d+/$"))
    run_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    assert wait_for_run(live_site, run_id) == "succeeded"
    titles = live_site.query(
        "SELECT p.title FROM wagtailcore_page p JOIN wagtailcore_locale l ON p.locale_id = l.id "
        "WHERE l.language_code = 'fr'"
    )
    assert len(titles) >= 9  # the section, its articles, and the home page above them


def test_snippet_bulk_action_translates_the_selection(editor_page, live_site):
    page = editor_page
    page.goto(live_site.url("/admin/snippets/demo/category/"))
    select_rows(page, "Travel", "Food")
    page.get_by_role("link", name="Translate the selected snippets").click()
    page.wait_for_url(re.compile(r"/admin/bulk/demo/category/translate/"))

    expect(page.get_by_text("Translate these 2 items from English")).to_be_visible()
    page.get_by_label("German").check()
    page.get_by_label("Start with a canary").uncheck()
    page.get_by_role("button", name="Check what it will translate").click()
    page.get_by_role("button", name="Start the run").click()

    page.wait_for_url(re.compile(r"/admin/bulk-translate/\d+/$"), timeout=RUN_TIMEOUT_MS)
    run_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    assert wait_for_run(live_site, run_id) == "succeeded"
    names = live_site.query(
        "SELECT c.name FROM demo_category c JOIN wagtailcore_locale l ON c.locale_id = l.id "
        "WHERE l.language_code = 'de'"
    )
    assert len(names) == 2
