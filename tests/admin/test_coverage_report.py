"""The translation coverage report: access, menu, rows, pre-filled new-run links, export."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse
from wagtail.models import Locale, Page

from tests import factories

REPORT = "wagtail_bulk_translate_coverage"

pytestmark = pytest.mark.django_db


def prefill(url: str) -> dict[str, list[str]]:
    parts = urlsplit(url)
    assert parts.path == reverse("wagtail_bulk_translate:add")
    return parse_qs(parts.query)


def test_anonymous_is_sent_to_login(client):
    response = client.get(reverse(REPORT))
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_user_without_the_permission_gets_403_and_no_menu_item(outsider_client):
    assert outsider_client.get(reverse(REPORT)).status_code == 403
    assert outsider_client.get(reverse(REPORT + "_results")).status_code == 403
    home = outsider_client.get(reverse("wagtailadmin_home")).content.decode()
    assert reverse(REPORT) not in home


def test_editor_finds_it_in_the_reports_menu(editor_client):
    home = editor_client.get(reverse("wagtailadmin_home")).content.decode()
    assert reverse(REPORT) in home
    assert "Translation coverage" in home


def test_rows_per_content_type_and_locale(editor_client, site_tree):
    factories.category()
    response = editor_client.get(reverse(REPORT))
    assert response.status_code == 200
    rows = {(row.label, row.locale): row for row in response.context["object_list"]}
    articles = rows[("demo.ArticlePage", "fr")]
    counts = (articles.total, articles.translated, articles.outdated, articles.missing)
    assert counts == (3, 0, 0, 3)
    assert rows[("demo.Category", "de")].outdated is None
    html = response.content.decode()
    assert "Article page" in html
    assert "unknown" in html  # Category keeps no revisions


def test_translate_buttons_prefill_the_new_run_form(editor_client, site_tree):
    factories.category()
    response = editor_client.get(reverse(REPORT))
    html = response.content.decode()
    assert "Translate what is missing or outdated" in html

    everything = prefill(
        response.context["view"].new_run_url([row.row for row in response.context["object_list"]])
    )
    assert everything["source"] == ["en"]
    # Every page tree of the source locale (the demo's home, and Wagtail's welcome page).
    roots = Page.objects.filter(depth=2, locale__language_code="en")
    assert everything["pages"] == [str(pk) for pk in roots.values_list("pk", flat=True)]
    assert str(site_tree["home"].pk) in everything["pages"]
    assert everything["snippets"] == ["demo.Category"]
    # Only the page types of the rows needing work, not every page of the trees.
    page_labels = {row.label for row in response.context["object_list"] if row.kind == "pages"}
    assert set(everything["page_types"]) == page_labels
    assert sorted(everything["targets"]) == ["de", "es", "fr"]
    assert everything["mode"] == ["changed"]

    category_fr = next(
        row
        for row in response.context["object_list"]
        if row.label == "demo.Category" and row.locale == "fr"
    )
    one = prefill(category_fr.translate_url)
    assert one == {
        "source": ["en"],
        "snippets": ["demo.Category"],
        "targets": ["fr"],
        "mode": ["changed"],
    }
    articles_de = next(
        row
        for row in response.context["object_list"]
        if row.label == "demo.ArticlePage" and row.locale == "de"
    )
    articles = prefill(articles_de.translate_url)
    assert articles["page_types"] == ["demo.ArticlePage"] and articles["targets"] == ["de"]
    assert articles["pages"] == everything["pages"]


def test_filters_narrow_the_rows(editor_client, site_tree):
    factories.category()
    response = editor_client.get(reverse(REPORT), {"target": "de", "kind": "snippets"})
    rows = list(response.context["object_list"])
    assert rows and {(row.label, row.locale) for row in rows} == {("demo.Category", "de")}


def test_source_locale_filter(editor_client, site_tree):
    response = editor_client.get(reverse(REPORT), {"source": "fr"})
    assert response.status_code == 200
    assert list(response.context["object_list"]) == []  # nothing is written in French
    assert "no translatable content" in response.content.decode()


def test_bad_filter_values_are_ignored_not_a_crash(editor_client, site_tree):
    response = editor_client.get(reverse(REPORT), {"source": "xx", "target": "<b>", "kind": "?"})
    assert response.status_code == 200
    assert response.context["view"].source_locale == Locale.get_default()


def test_everything_current_says_so_and_offers_no_button(
    admin_client, site_tree, start, task_queue
):
    roots = Page.objects.filter(depth=2).values_list("pk", flat=True)
    start(
        scope={"pages": [{"id": pk, "descendants": True} for pk in roots]},
        source_locale="en",
        target_locales=["fr", "de", "es"],
    )
    task_queue.drain()
    html = admin_client.get(reverse(REPORT)).content.decode()
    assert "Everything is translated and up to date" in html
    assert "Translate what is missing or outdated" not in html


def test_results_fragment_and_csv_export(editor_client, site_tree):
    fragment = editor_client.get(reverse(REPORT + "_results"))
    assert fragment.status_code == 200
    assert b"<html" not in fragment.content
    export = editor_client.get(reverse(REPORT), {"export": "csv"})
    assert export.status_code == 200
    lines = b"".join(export.streaming_content).decode().splitlines()
    assert lines[0].startswith("Content type,Model,Target locale,Source objects")
    assert any(line.startswith("Article page,demo.ArticlePage,fr,3,0,0,3") for line in lines)


def test_wrong_method_is_refused(editor_client):
    assert editor_client.post(reverse(REPORT)).status_code == 405


def test_query_count_does_not_grow_with_the_number_of_pages(
    editor_client, site_tree, django_assert_max_num_queries, count_queries
):
    with count_queries() as small:
        editor_client.get(reverse(REPORT))
    for i in range(40):
        factories.article(site_tree["news"], f"Story {i}")
    with django_assert_max_num_queries(len(small.captured_queries)):
        response = editor_client.get(reverse(REPORT))
    assert response.status_code == 200
