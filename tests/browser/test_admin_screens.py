"""In a real browser, the screens of issue 17: the runs listing and the dashboard following a
run live, the run page showing its final report in place, the confirmation pages in Wagtail's
layout, the pause notice, the retry form, and the canary review (labels, outcome, filters)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PAGE_TIMEOUT_MS, RUN_TIMEOUT_MS
from tests.browser.test_runs import (
    RUN_PAGE,
    expect_status,
    run_id_of,
    start_from_new_run_form,
)
from tests.e2e.helpers import manage

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


@pytest.fixture
def second_page(chromium, logged_in_state):
    """Another signed-in tab of its own (a page that polls while the first one is in use)."""
    context = chromium.new_context(
        storage_state=logged_in_state, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    yield page
    context.close()


def expect_breadcrumb_to(page, label: str) -> None:
    """Wagtail's header bar: its breadcrumbs (collapsed until toggled) lead back to the run."""
    page.get_by_role("button", name="Toggle breadcrumbs").click()
    crumbs = page.get_by_role("navigation", name="Breadcrumb")
    expect(crumbs.get_by_role("link", name=label)).to_be_visible()


def live_row(page, run_id: int):
    return page.locator(f'tr[data-bt-run="{run_id}"]')


def test_listing_dashboard_and_run_page_follow_a_run(
    editor_page, second_page, live_site, screenshot
):
    page, watcher = editor_page, second_page
    notes = live_site.page_id("Field notes")
    live_site.hold_file.touch()  # workers wait in the translator until it is removed
    try:
        # Refresh: the run translates (and so waits) though another test translated the page.
        start_from_new_run_form(
            page, live_site, f"pages={notes}&mode=refresh", locale="French", canary=None
        )
        page.get_by_role("button", name="Start the run").click()
        page.wait_for_url(RUN_PAGE)
        run_id = run_id_of(page)
        expect_status(page, "running")

        # Cancel asks in Wagtail's layout: its header bar with breadcrumbs back to the run.
        page.locator("[data-bt-action=cancel]").click()
        expect(page.get_by_text("Cancel this run?")).to_be_visible()
        expect_breadcrumb_to(page, f"Run #{run_id}")
        screenshot(page, "confirm_cancel")
        page.get_by_role("link", name="No, go back").click()
        page.wait_for_url(RUN_PAGE)

        # An editor's pause is information, in their display name (not a red error).
        page.locator("[data-bt-action=pause]").click()
        notice = page.locator("[data-bt-run-paused]")
        expect(notice).to_contain_text("Paused by Edith Editor.")
        expect(notice).to_have_class(re.compile(r"\bhelp-info\b"))
        expect(page.locator("[data-bt-run-error]")).to_have_count(0)
        screenshot(page, "run_page_paused")
        page.locator("[data-bt-action=resume]").click()
        expect_status(page, "running")

        # The listing and the dashboard show the run in flight, their bars driven live.
        watcher.goto(live_site.url("/admin/bulk-translate/"))
        expect(live_row(watcher, run_id).locator("[data-bt-status]")).to_have_attribute(
            "data-bt-run-status", "running"
        )
        screenshot(watcher, "runs_listing_live")
        page.goto(live_site.url("/admin/"))
        expect(page.locator(f'[data-bt-dashboard-run="{run_id}"]')).to_be_visible()
        screenshot(page, "dashboard_panel")
        for tab in (page, watcher):
            tab.evaluate("window.btNoReload = true")
    finally:
        live_site.hold_file.unlink(missing_ok=True)

    # Released: both bars reach 100 % without a reload.
    dashboard_bar = page.locator(f'[data-bt-dashboard-run="{run_id}"] [data-bt-progress]')
    listing_bar = live_row(watcher, run_id).locator("[data-bt-progress]")
    for bar in (dashboard_bar, listing_bar):
        expect(bar).to_have_attribute("aria-valuenow", "100", timeout=RUN_TIMEOUT_MS)
    expect(live_row(watcher, run_id).locator("[data-bt-status]")).to_have_attribute(
        "data-bt-run-status", "succeeded", timeout=RUN_TIMEOUT_MS
    )
    for tab in (page, watcher):
        assert tab.evaluate("window.btNoReload === true")

    # The retry form, once units failed: Wagtail's checkbox lists, not native multi-selects.
    fail_some_units(live_site, run_id)
    page.goto(live_site.url(f"/admin/bulk-translate/{run_id}/"))
    form = page.locator("[data-bt-retry-form]")
    expect(form.get_by_label("fr", exact=True)).to_be_visible()
    expect(form.locator("select")).to_have_count(0)
    form.scroll_into_view_if_needed()
    screenshot(page, "run_page_retry_form")


def fail_some_units(site, run_id: int) -> None:
    """Two of the run's units failed, through the ORM (so the run's tally follows)."""
    code = (
        "from wagtail_bulk_translate.models import Run, Unit;"
        f"ids = list(Unit.objects.filter(run_id={run_id}, status='succeeded')"
        ".values_list('pk', flat=True)[:2]);"
        "Unit.objects.filter(pk__in=ids).update(status='failed', error_code='translator_error',"
        " error_message='The provider answered 503.');"
        f"Run.objects.filter(pk={run_id}).update(status='partial')"
    )
    manage(site.env, "shell", "-c", code)


def test_run_page_shows_its_final_report_in_place_then_the_canary_review(
    editor_page, live_site, screenshot
):
    page = editor_page
    about = live_site.page_id("About us")
    start_from_new_run_form(
        # Refresh: every unit needs work whatever ran before; four picks cover every type.
        page,
        live_site,
        f"pages={about}&snippets=demo.Category&mode=refresh",
        locale="Spanish",
        canary=4,
    )
    page.get_by_role("button", name="Start the canary").click()
    page.wait_for_url(RUN_PAGE)
    canary_id = run_id_of(page)
    page.evaluate("window.btNoReload = true")
    expect(page.locator("[data-bt-final-report]")).to_be_attached(timeout=RUN_TIMEOUT_MS)
    assert page.evaluate("window.btNoReload === true")
    expect(page.locator("[data-bt-finished-notice]")).to_be_hidden()
    # The final summary: when the run finished.
    expect(page.locator("[data-bt-summary] dt", has_text="Finished")).to_be_visible()
    expect(page.locator("[data-bt-canary-review-link]")).to_be_visible()
    screenshot(page, "run_page_final_report")

    page.locator("[data-bt-canary-review-link]").click()
    page.wait_for_url(re.compile(rf"/admin/bulk-translate/{canary_id}/canary/"))
    outcome = page.locator("[data-bt-canary-outcome]")
    expect(outcome).to_contain_text("for a canary of 4")
    expect(outcome).to_contain_text(re.compile(r"(its|their) type has no drafts"))
    expect(page.locator("[data-bt-sample-note]").first).to_be_visible()
    labels = page.locator("[data-bt-field-label]")
    expect(labels.filter(has_text="Body > Paragraph").first).to_be_visible()
    expect(labels.filter(has_text=re.compile(r"^body\.paragraph$"))).to_have_count(0)
    screenshot(page, "canary_review_labels")

    page.get_by_label("Type").select_option(label="Category")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("[data-bt-sample]").first).to_be_visible()
    for heading in page.locator("[data-bt-sample]").all():
        expect(heading.locator("[data-bt-sample-note]")).to_be_visible()
    screenshot(page, "canary_review_filtered")

    # Revert's confirmation, in Wagtail's layout.
    page.goto(live_site.url(f"/admin/bulk-translate/{canary_id}/revert/"))
    expect(page.get_by_text("Revert this run?")).to_be_visible()
    expect_breadcrumb_to(page, f"Canary #{canary_id}")
    screenshot(page, "confirm_revert")
