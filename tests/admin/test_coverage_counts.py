"""The coverage report's figures: a row whose outdated count is unknown never reads 100 %, and
the one-click fix counts the translations that need work, not every unit of the site."""

from __future__ import annotations

import pytest
from django.urls import reverse
from wagtail.models import Locale

from tests import factories

REPORT = "wagtail_bulk_translate_coverage"

pytestmark = pytest.mark.django_db


def test_translated_objects_without_edit_times_are_not_100_percent(editor_client, site_tree):
    travel = factories.category()
    travel.copy_for_translation(Locale.objects.get(language_code="fr")).save()

    response = editor_client.get(reverse(REPORT))

    rows = {(row.label, row.locale): row for row in response.context["object_list"]}
    french = rows[("demo.Category", "fr")]
    assert (french.translated, french.outdated, french.missing) == (1, None, 0)
    assert french.percent_translated is None and french.percent_label == "unknown"
    assert rows[("demo.Category", "de")].percent_label == "0"


def test_the_one_click_fix_counts_missing_and_outdated_translations(editor_client, site_tree):
    response = editor_client.get(reverse(REPORT))

    rows = response.context["object_list"]
    expected = sum(row.missing + (row.outdated or 0) for row in rows)
    assert expected > 0
    html = response.content.decode()
    assert f"Translate what is missing or outdated ({expected} translations)" in html
