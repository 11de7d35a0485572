"""In a real browser: a canary from the new-run form, watched live, reviewed, promoted, the full
run finished and reverted; a running run cancelled; the runs listing."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import RUN_TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

RUN_PAGE = re.compile(r"/admin/bulk-translate/(\d+)/$")


def run_id_of(page) -> int:
    return int(RUN_PAGE.search(page.url).group(1))


def expect_status(page, status: str) -> None:
    """Wait (bounded) until the run page, updated by its poller, shows this status."""
    expect(page.locator("[data-bt-status]")).to_have_attribute(
        "data-bt-run-status", status, timeout=RUN_TIMEOUT_MS
    )


def start_from_new_run_form(page, site, prefill: str, *, locale: str, canary: int | None):
    """The new-run form (pre-filled with a page, as the coverage report does), the preflight,
    then start; returns on the run page."""
    page.goto(site.url(f"/admin/bulk-translate/new/?{prefill}"))
    page.get_by_label(locale, exact=True).check()
    if canary:
        page.get_by_label("Canary size").fill(str(canary))
    else:
        page.get_by_label("Start with a canary").uncheck()
    page.get_by_role("button", name="Check and estimate").click()
    expect(page.get_by_text("Before you start")).to_be_visible()
    return page


def test_canary_review_promote_finish_and_revert(editor_page, live_site, screenshot):
    page = editor_page
    news = live_site.page_id("News")
    start_from_new_run_form(page, live_site, f"pages={news}", locale="German", canary=3)
    screenshot(page, "new_run_preflight")
    page.get_by_role("button", name="Start the canary").click()
    page.wait_for_url(RUN_PAGE)
    canary_id = run_id_of(page)

    # The progress bar reaches 100 % without a reload: a marker set now would not survive one.
    page.evaluate("window.btNoReload = true")
    expect(page.locator("[data-bt-progress]")).to_have_attribute(
        "aria-valuenow", "100", timeout=RUN_TIMEOUT_MS
    )
    expect_status(page, "succeeded")
    assert page.evaluate("window.btNoReload === true")
    screenshot(page, "run_page")

    page.get_by_role("link", name="Review the canary").click()
    expect(page.get_by_role("button", name="Promote to full run")).to_be_visible()
    expect(page.locator("[data-bt-edit-target]").first).to_be_visible()
    screenshot(page, "canary_review")
    page.get_by_role("button", name="Promote to full run").click()

    page.wait_for_url(RUN_PAGE)
    full_id = run_id_of(page)
    assert full_id != canary_id
    expect(page.locator("[data-bt-promoted-from]")).to_be_visible()
    expect_status(page, "succeeded")
    assert live_site.query(
        "SELECT promoted_from_id FROM wagtail_bulk_translate_run WHERE id = ?", full_id
    ) == [(canary_id,)]

    page.reload()  # the finished run's report offers revert
    page.locator("[data-bt-action=revert]").click()
    expect(page.get_by_text("Revert this run?")).to_be_visible()
    page.get_by_role("button", name="Yes, revert the run").click()
    page.wait_for_url(RUN_PAGE)
    # The page follows the background revert without a reload.
    page.evaluate("window.btNoReload = true")
    expect_status(page, "reverted")
    assert page.evaluate("window.btNoReload === true")


def test_cancel_a_running_run(editor_page, live_site):
    page = editor_page
    guides = live_site.page_id("Guides")
    # Workers wait in the translator while the hold file exists: the run is surely still
    # running when Cancel is clicked.
    live_site.hold_file.touch()
    try:
        start_from_new_run_form(page, live_site, f"pages={guides}", locale="Spanish", canary=None)
        page.get_by_role("button", name="Start the run").click()
        page.wait_for_url(RUN_PAGE)
        run_id = run_id_of(page)
        expect_status(page, "running")
        page.locator("[data-bt-action=cancel]").click()
        expect(page.get_by_text("Cancel this run?")).to_be_visible()
        page.get_by_role("button", name="Yes, cancel the run").click()
        page.wait_for_url(RUN_PAGE)
    finally:
        live_site.hold_file.unlink(missing_ok=True)
    expect_status(page, "cancelled")
    assert live_site.query(
        "SELECT status FROM wagtail_bulk_translate_run WHERE id = ?", run_id
    ) == [("cancelled",)]


def test_runs_listing(editor_page, live_site, screenshot):
    page = editor_page
    page.goto(live_site.url("/admin/"))
    menu = page.get_by_role("navigation", name="Main menu")
    menu.get_by_role("link", name="Bulk translation").click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/$"))
    expect(page.locator("[data-bt-progress]").first).to_be_visible()
    assert page.viewport_size["width"] == 1280
    # Every run title reads on one line: with too many columns it wrapped letter by letter.
    for title in page.locator("[data-bt-run-title]").all():
        box = title.bounding_box()
        line_height = title.evaluate("el => parseFloat(getComputedStyle(el).lineHeight) || 24")
        assert box["width"] >= 50 and box["height"] < 1.5 * line_height, (title.inner_text(), box)
    screenshot(page, "runs_listing")
