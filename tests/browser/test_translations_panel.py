"""In a real browser, as the demo editor: the page editor's Translations panel, "Translate now"
for one locale translated by the real worker, the panel turning "up to date", and the target's
editor naming the run that wrote it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import RUN_TIMEOUT_MS
from tests.browser.flows import wait_for_run

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

RUN_PAGE = re.compile(r"/admin/bulk-translate/(\d+)/$")
# A landing page no other browser test translates: it starts missing in German.
SOURCE_TITLE = "Careers"


def open_translations_panel(page) -> None:
    """Open the panel unless Wagtail reopened it (it remembers the last open side panel)."""
    toggle = page.locator('[data-side-panel-toggle="bulk_translate_translations"]')
    expect(toggle).to_be_visible()
    page.wait_for_function("document.readyState === 'complete'")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    # The panel slides in: wait until it lies inside the window (a bound, not a sleep).
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-bt-translations-panel]')].some("
        "p => p.offsetParent && p.getBoundingClientRect().right <= window.innerWidth + 1)"
    )
    # wagtail-localize's translation editor renders its side panels twice (header and body):
    # the visible copy is the one the editor sees.
    expect(page.locator("[data-bt-translations-panel]:visible")).to_have_count(1)


def test_translate_now_from_the_page_editor(editor_page, live_site, screenshot):
    page = editor_page
    source = live_site.page_id(SOURCE_TITLE)
    page.goto(live_site.url(f"/admin/pages/{source}/edit/"))
    # Published from the editor: a source revision by the editor, which the target names.
    page.locator('button[name="action-publish"]').evaluate("button => button.click()")
    expect(page.get_by_text("has been published")).to_be_visible()
    page.goto(live_site.url(f"/admin/pages/{source}/edit/"))
    open_translations_panel(page)
    german = page.locator('[data-bt-locale="de"]')
    expect(german).to_have_attribute("data-bt-state", re.compile("missing|outdated"))
    screenshot(page, "translations_panel")

    german.get_by_role("link", name="Translate now").click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/translate-now/"))
    expect(page.get_by_text("into German now?")).to_be_visible()
    page.get_by_label("Publish it").check()
    page.get_by_role("button", name="Translate now").click()
    page.wait_for_url(RUN_PAGE)
    run_id = int(RUN_PAGE.search(page.url).group(1))
    assert wait_for_run(live_site, run_id) == "succeeded"

    page.goto(live_site.url(f"/admin/pages/{source}/edit/"))
    open_translations_panel(page)
    german = page.locator('[data-bt-locale="de"]')
    expect(german).to_have_attribute("data-bt-state", "up_to_date", timeout=RUN_TIMEOUT_MS)

    # The target opens in wagtail-localize's translation editor: the panel names the run.
    german.get_by_role("link", name="Edit").click()
    page.wait_for_url(re.compile(r"/admin/pages/\d+/edit/$"))
    open_translations_panel(page)
    origin = page.locator("[data-bt-origin]:visible")
    expect(origin).to_have_attribute("data-bt-source-changed", "no")
    expect(origin.get_by_role("link", name=f"run #{run_id}")).to_be_visible()
    expect(origin.locator("[data-bt-source-revision]")).to_contain_text("Edith Editor")
    screenshot(page, "translations_panel_target")
