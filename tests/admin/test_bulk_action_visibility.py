""" "Translate…" is listed among the bulk actions only for users with the plugin's permission,
in the page explorer and in translatable snippet listings (Wagtail lists every registered
action to everyone)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from demo.models import Category

pytestmark = pytest.mark.django_db

TRANSLATE_PAGES = reverse("wagtail_bulk_action", args=["wagtailcore", "page", "translate"])
TRANSLATE_CATEGORIES = reverse("wagtail_bulk_action", args=["demo", "category", "translate"])
CATEGORIES = reverse(Category.snippet_viewset.get_url_name("list"))


def explorer(client, page) -> str:
    response = client.get(reverse("wagtailadmin_explore", args=[page.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_explorer_offers_translate_to_who_may_start_runs(client, editor, site_tree):
    client.force_login(editor)

    assert TRANSLATE_PAGES in explorer(client, site_tree["news"])


def test_the_page_explorer_hides_translate_from_editors_without_the_permission(
    outsider_client, site_tree
):
    html = explorer(outsider_client, site_tree["news"])

    assert TRANSLATE_PAGES not in html
    assert reverse("wagtail_bulk_action", args=["wagtailcore", "page", "move"]) in html


def test_snippet_listings_hide_translate_from_editors_without_the_permission(
    client, outsider, editor
):
    for user in (outsider, editor):
        user.groups.first().permissions.add(Permission.objects.get(codename="change_category"))

    client.force_login(outsider)
    hidden = client.get(CATEGORIES).content.decode()
    client.force_login(editor)
    shown = client.get(CATEGORIES).content.decode()

    assert TRANSLATE_CATEGORIES not in hidden
    assert reverse("wagtail_bulk_action", args=["demo", "category", "delete"]) in hidden
    assert TRANSLATE_CATEGORIES in shown
