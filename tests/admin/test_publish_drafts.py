"""The coverage report separates live translations from drafts, and publishes a row's drafts."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from wagtail.models import Locale, ModelLogEntry, PageLogEntry

from demo.models import ArticlePage

REPORT = "wagtail_bulk_translate_coverage"
PUBLISH = "wagtail_bulk_translate_publish_drafts"

pytestmark = pytest.mark.django_db


@pytest.fixture
def drafted(site_tree, start, task_queue, recording_translator):
    """The news tree translated into French as drafts."""
    scope = {"pages": [{"id": site_tree["home"].pk, "descendants": True}]}
    start(scope=scope, source_locale="en", target_locales=["fr"], publish_policy="draft")
    task_queue.drain()
    return site_tree


def articles_fr(response):
    return next(
        row
        for row in response.context["object_list"]
        if row.label == "demo.ArticlePage" and row.locale == "fr"
    )


def test_drafts_are_not_counted_live_and_can_be_published(admin_client, drafted):
    row = articles_fr(admin_client.get(reverse(REPORT)))
    assert row.translated == 3 and row.drafts == 3 and row.translated_live == 0
    assert "data-bt-publish-drafts" in admin_client.get(reverse(REPORT)).content.decode()

    params = {"model": "demo.ArticlePage", "source": "en", "target": "fr"}
    confirm = admin_client.get(reverse(PUBLISH), params)
    assert confirm.status_code == 200 and confirm.context["count"] == 3
    assert "3 machine-translated drafts" in confirm.content.decode()

    response = admin_client.post(reverse(PUBLISH), params)
    assert response.status_code == 302
    french = ArticlePage.objects.filter(locale=Locale.objects.get(language_code="fr"))
    assert french.count() == 3 and all(page.live for page in french)
    assert PageLogEntry.objects.filter(action="wagtail.publish", page__in=french).count() == 3
    report = admin_client.get(reverse(REPORT))
    row = articles_fr(report)
    assert row.drafts == 0 and row.translated_live == 3
    # A row without drafts offers no button (its cell holds the count only).
    assert re.search(r'data-bt-drafts="0">\s*0\s*</td>', report.content.decode())
    assert not ModelLogEntry.objects.filter(action="wagtail.publish").exists()


def test_outsiders_are_refused(outsider_client, drafted):
    params = {"model": "demo.ArticlePage", "source": "en", "target": "fr"}
    assert outsider_client.post(reverse(PUBLISH), params).status_code == 403
    assert ArticlePage.objects.filter(locale__language_code="fr", live=True).count() == 0


def test_bad_rows_are_not_found(admin_client, drafted):
    params = {"model": "demo.ArticlePage", "source": "en", "target": "fr"}
    bad = {**params, "model": "demo.Nope"}
    for wrong in (bad, {**params, "target": "xx"}):
        response = admin_client.post(reverse(PUBLISH), wrong, follow=True)
        assert response.redirect_chain[-1][0].endswith(reverse(REPORT))
        errors = [str(m) for m in response.context["messages"]]
        assert any("demo.Nope" in m or "Unknown source or target" in m for m in errors)
    assert ArticlePage.objects.filter(locale__language_code="fr", live=True).count() == 0
