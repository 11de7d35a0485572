"""In a real browser, as an editor who may edit pages and snippets but lacks the plugin's
permission: "Translate…" is not offered among the bulk actions (it would answer 403)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PAGE_TIMEOUT_MS, PASSWORD
from tests.browser.test_bulk_actions import select_rows
from tests.e2e.helpers import manage

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

WRITER = "writer"
CREATE_WRITER = f"""
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from wagtail.models import GroupPagePermission, Page

group, _ = Group.objects.get_or_create(name="Writers without bulk translation")
for codename in ("access_admin", "add_category", "change_category", "delete_category"):
    group.permissions.add(Permission.objects.get(codename=codename))
for codename in ("add_page", "change_page", "publish_page"):
    GroupPagePermission.objects.get_or_create(
        group=group,
        page=Page.get_first_root_node(),
        permission=Permission.objects.get(content_type__app_label="wagtailcore", codename=codename),
    )
user = get_user_model().objects.filter(username="{WRITER}").first()
if user is None:
    user = get_user_model().objects.create_user("{WRITER}", "w@example.com", "{PASSWORD}")
user.groups.add(group)
"""


@pytest.fixture(scope="module")
def writer_page(chromium, live_site):
    manage(live_site.env, "shell", "--no-imports", "-c", CREATE_WRITER)
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    page.goto(live_site.url("/admin/login/"))
    page.fill("#id_username", WRITER)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_site.url("/admin/"))
    yield page
    context.close()


def bulk_action_links(page):
    """The footer's bulk actions, the "More" menu opened if there is one."""
    footer = page.locator("[data-bulk-action-footer]")
    expect(footer).to_be_visible()
    more = footer.get_by_role("button", name="More")
    if more.count():
        more.click()
    return footer.get_by_role("link")


def test_the_page_explorer_does_not_offer_translate(writer_page, live_site):
    page = writer_page
    page.goto(live_site.url(f"/admin/pages/{live_site.page_id('Northwind Journal')}/"))
    select_rows(page, "Field notes")

    links = bulk_action_links(page)

    expect(links.filter(has_text="Move")).to_have_count(1)
    expect(links.filter(has_text="Translate")).to_have_count(0)


def test_snippet_listings_do_not_offer_translate(writer_page, live_site):
    page = writer_page
    page.goto(live_site.url("/admin/snippets/demo/category/"))
    select_rows(page, "Travel")

    links = bulk_action_links(page)

    expect(links.filter(has_text="Delete")).to_have_count(1)
    expect(links.filter(has_text="Translate")).to_have_count(0)
