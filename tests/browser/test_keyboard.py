"""In a real browser, with the keyboard only (Tab, Shift+Tab, Enter, Space, arrow keys and
typing; never a click): log in, reach the plugin from the main menu, open the new-run form,
fill it, preflight, start, watch the run's progress, cancel it and confirm. At each step the
focused element is the intended control and shows a visible focus indicator."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PAGE_TIMEOUT_MS, PASSWORD, RUN_TIMEOUT_MS, USERNAME
from tests.browser.test_runs import RUN_PAGE, expect_status, run_id_of

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

# Bounds on how far Tab may have to travel (the main menu and Wagtail's header come first).
MAX_TABS = 200

# What the focused element is and whether it shows a focus indicator (outline or box-shadow,
# read from the computed style: the ring the user sees, not a :focus rule that may not apply).
FOCUSED = """() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    const label = el.labels && el.labels.length ? el.labels[0].innerText : '';
    const name = (el.getAttribute('aria-label') || label || el.innerText || el.value || '');
    return {
        tag: el.tagName.toLowerCase(),
        type: el.getAttribute('type') || '',
        id: el.id,
        name: name.replace(/\\s+/g, ' ').trim(),
        checked: !!el.checked,
        outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
        shadow: style.boxShadow !== 'none',
    };
}"""


def focused(page) -> dict | None:
    return page.evaluate(FOCUSED)


def tab_to(page, what: str, *, name: str | re.Pattern, tag: str | None = None, back=False):
    """Press Tab (Shift+Tab with ``back``) until the control named ``name`` has the focus, then
    assert it shows a visible focus indicator. Fails after MAX_TABS presses."""
    key = "Shift+Tab" if back else "Tab"
    seen = []
    for _ in range(MAX_TABS):
        page.keyboard.press(key)
        el = focused(page)
        if el is None:
            continue
        matches = name.search(el["name"]) if isinstance(name, re.Pattern) else el["name"] == name
        if matches and (tag is None or el["tag"] == tag):
            assert el["outline"] or el["shadow"], f"{what} has no visible focus: {el}"
            return el
        seen.append(f"{el['tag']} {el['name'][:40]!r}")
    raise AssertionError(
        f"{what} ({name!r}) not reached by {key}; focus went by:\n" + "\n".join(seen)
    )


def expect_focus(page, what: str, **expected) -> dict:
    el = focused(page)
    assert el is not None, f"{what}: nothing has the focus"
    for key, value in expected.items():
        assert el[key] == value, f"{what}: {key} is {el[key]!r}, not {value!r} ({el})"
    assert el["outline"] or el["shadow"], f"{what} has no visible focus: {el}"
    return el


@pytest.fixture
def anonymous_page(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    yield page
    context.close()


def test_start_watch_and_cancel_a_run_with_the_keyboard_only(anonymous_page, live_site):
    page = anonymous_page
    page.goto(live_site.url("/admin/login/"))
    tab_to(page, "the username field", name=re.compile("username", re.I), tag="input")
    page.keyboard.type(USERNAME)
    tab_to(page, "the password field", name=re.compile("password", re.I), tag="input")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(live_site.url("/admin/"))

    tab_to(page, "the plugin's menu item", name="Bulk translation", tag="a")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/admin/bulk-translate/$"))

    tab_to(page, "the New run button", name="New run", tag="a")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/admin/bulk-translate/new/$"))

    # What: the demo's categories (snippets); into Spanish; every unit worked again (refresh,
    # by arrow key in the mode's radio group, so earlier runs leave work to do); no canary.
    tab_to(page, "the categories checkbox", name=re.compile(r"^Categor"), tag="input")
    page.keyboard.press("Space")
    expect_focus(page, "the categories checkbox", checked=True)
    tab_to(page, "the Spanish checkbox", name="Spanish", tag="input")
    page.keyboard.press("Space")
    expect_focus(page, "the Spanish checkbox", checked=True)
    tab_to(page, "the mode's radio group", name="Changed content only", tag="input")
    page.keyboard.press("ArrowDown")
    expect_focus(page, "the refresh radio", name="Refresh machine translations", checked=True)
    tab_to(page, "the canary checkbox", name="Start with a canary", tag="input")
    if focused(page)["checked"]:
        page.keyboard.press("Space")
    expect_focus(page, "the canary checkbox", checked=False)
    tab_to(page, "the preflight button", name="Check and estimate", tag="button")

    live_site.hold_file.touch()  # workers wait in the translator: the run is still running
    try:
        page.keyboard.press("Enter")
        expect(page.get_by_text("Before you start")).to_be_visible()
        tab_to(page, "the start button", name="Start the run", tag="button")
        page.keyboard.press("Enter")
        page.wait_for_url(RUN_PAGE)
        run_id = run_id_of(page)
        expect_status(page, "running")
        # Watching: the progress is read from the polite live region, kept up to date.
        live = page.locator("[data-bt-live]")
        expect(live).to_have_attribute("aria-live", "polite")
        expect(live.locator("[data-bt-status-text]")).to_have_text("Running")

        tab_to(page, "the cancel link", name="Cancel run…", tag="a")
        page.keyboard.press("Enter")
        expect(page.get_by_text("Cancel this run?")).to_be_visible()
        tab_to(page, "the confirm button", name="Yes, cancel the run", tag="button")
        page.keyboard.press("Space")  # a button is operable by Space as well as Enter
        page.wait_for_url(RUN_PAGE)
    finally:
        live_site.hold_file.unlink(missing_ok=True)
    expect_status(page, "cancelled")
    expect(page.locator("[data-bt-live] [data-bt-status-text]")).to_have_text(
        "Cancelled", timeout=RUN_TIMEOUT_MS
    )
    assert live_site.query(
        "SELECT status FROM wagtail_bulk_translate_run WHERE id = ?", run_id
    ) == [("cancelled",)]
