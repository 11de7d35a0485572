"""In a real browser, bad input on the run forms: the form's own errors (not the browser's
tooltips), and no source locale offered as a target."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_bulk_actions import select_rows

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


def test_the_new_run_form_does_not_offer_the_source_locale_as_a_target(editor_page, live_site):
    page = editor_page
    page.goto(live_site.url("/admin/bulk-translate/new/"))
    targets = page.locator("[data-bt-field=target_locales]")

    expect(targets.get_by_label("French", exact=True)).to_be_visible()
    expect(targets.get_by_label("English", exact=True)).to_be_hidden()

    page.get_by_label("Source locale").select_option("fr")
    expect(targets.get_by_label("French", exact=True)).to_be_hidden()
    expect(targets.get_by_label("English", exact=True)).to_be_visible()


def test_a_canary_of_0_in_the_bulk_action_form_gets_the_form_error(editor_page, live_site):
    page = editor_page
    page.goto(live_site.url("/admin/snippets/demo/category/"))
    select_rows(page, "Travel")
    page.get_by_role("link", name="Translate the selected snippets").click()
    page.wait_for_url(re.compile(r"/admin/bulk/demo/category/translate/"))
    page.get_by_label("German").check()
    page.get_by_label("Canary size").fill("0")

    page.get_by_role("button", name="Check what it will translate").click()

    # The server answered (no browser tooltip held the submission back) with the form's error.
    expect(page.locator("[data-bt-field=canary_size]")).to_contain_text(
        "greater than or equal to 1"
    )
