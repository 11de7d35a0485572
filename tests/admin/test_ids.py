"""Bad ids in admin URLs, query strings and forms: a 404 or a form error, never a 500.

``²`` passes ``str.isdigit()`` and fails ``int()``; ids above 64 bits raise ``OverflowError``
on SQLite in ``__in`` lookups. Both used to answer 500.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.admin.test_bulk_actions import action_url
from tests.admin.test_new_run import form_data
from wagtail_bulk_translate.admin.translations_panel.links import URL_NAME
from wagtail_bulk_translate.models import Run

HUGE = str(2**64)
BAD_IDS = ["²", "٣", "-1", HUGE, "9" * 5000]


def is_404(response) -> bool:
    """A 404, as the sandbox answers it: Django's LocaleMiddleware turns an admin 404 into a
    redirect to the language-prefixed URL (where the site's catch-all page URL would match)."""
    redirected = response.status_code == 302 and response["Location"].startswith("/en/admin/")
    return response.status_code == 404 or redirected


RUN_URLS = ["inspect", "status", "canary_review", "cancel", "pause", "resume", "retry", "promote"]


@pytest.mark.parametrize("name", RUN_URLS)
def test_a_run_id_no_column_holds_is_404(admin_client, name):
    url = reverse(f"wagtail_bulk_translate:{name}", args=[1]).replace("/1/", f"/{HUGE}/")
    assert is_404(admin_client.get(url))
    assert is_404(admin_client.post(url))


@pytest.mark.parametrize("value", BAD_IDS)
def test_the_review_queue_of_a_bad_run_id_is_404(admin_client, value):
    url = reverse("wagtail_bulk_translate_review:index")
    assert is_404(admin_client.get(url, {"run": value}))


@pytest.mark.parametrize("value", BAD_IDS)
def test_a_review_action_on_a_bad_unit_id_is_404(admin_client, value):
    url = reverse("wagtail_bulk_translate_review:action", args=["accept"])
    assert is_404(admin_client.post(url, {"unit": ["1", value]}))


def test_adding_a_term_to_a_unit_no_column_holds_is_404(admin_client):
    url = reverse("wagtail_bulk_translate_review:add_term", args=[1]).replace("/1/", f"/{HUGE}/")
    assert is_404(admin_client.get(url))


@pytest.mark.parametrize("value", BAD_IDS)
def test_translate_now_on_a_bad_page_id_is_404(admin_client, site_tree, value):
    url = reverse(URL_NAME, args=["wagtailcore", "page", value])
    assert is_404(admin_client.get(url))
    assert is_404(admin_client.post(url, {"locale": "fr", "publish_policy": "draft"}))


@pytest.mark.parametrize("value", BAD_IDS)
def test_a_new_run_prefilled_with_a_bad_page_id_leaves_it_out(admin_client, site_tree, value):
    response = admin_client.get((reverse("wagtail_bulk_translate:add")), {"pages": value})
    assert response.status_code == 200
    assert "Left out pages that do not exist" in response.content.decode()


@pytest.mark.parametrize("value", BAD_IDS)
def test_a_new_run_posted_with_a_bad_page_id_is_a_form_error(admin_client, site_tree, value):
    response = admin_client.post(
        reverse("wagtail_bulk_translate:add"), form_data(**{"pages-0-page": value})
    )
    assert response.status_code == 200
    assert not Run.objects.exists()


@pytest.mark.parametrize("value", BAD_IDS)
def test_a_bulk_action_on_bad_ids_is_404(admin_client, site_tree, value):
    assert is_404(admin_client.get(action_url("wagtailcore.page", [value])))


def test_a_bulk_action_leaves_out_bad_ids_beside_good_ones(admin_client, site_tree):
    response = admin_client.get(action_url("wagtailcore.page", [HUGE, site_tree["news"].pk]))
    assert response.status_code == 200


@pytest.mark.parametrize(
    "name",
    [
        "wagtail_bulk_translate_glossary:edit",
        "wagtail_bulk_translate_glossary:delete",
        "wagtail_bulk_translate_glossary:import_result",
        "wagtail_bulk_translate_house_style:edit",
        "wagtail_bulk_translate_sync:pause_site",
    ],
)
def test_other_screens_answer_404_to_an_id_no_column_holds(admin_client, name):
    url = reverse(name, args=[1]).replace("/1/", f"/{HUGE}/")
    assert is_404(admin_client.get(url))
