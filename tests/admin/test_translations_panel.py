"""The editor's Translations side panel and "Translate now": who sees it, what it shows on a
source and on a target, and every refusal of "Translate now" (nothing created)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from wagtail.models import GroupPagePermission, Locale, ModelLogEntry, Page

from tests import factories
from tests.admin.conftest import admin_user
from tests.admin.test_ids import is_404
from wagtail_bulk_translate.admin.log_actions import STARTED
from wagtail_bulk_translate.admin.translations_panel.links import URL_NAME, translate_now_url
from wagtail_bulk_translate.models import Run, RunOrigin

pytestmark = pytest.mark.django_db

PANEL = 'data-side-panel="bulk_translate_translations"'


def edit_page(client, page):
    return client.get(reverse("wagtailadmin_pages:edit", args=[page.pk]))


def panel_rows(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-bt-locale="(\w+)" data-bt-state="(\w+)"', html))


def translate(start, task_queue, page, locales=("fr",), **options) -> Run:
    scope = {"pages": [{"id": page.pk, "descendants": False}]}
    run = start(scope=scope, source_locale="en", target_locales=list(locales), **options)
    task_queue.drain()
    return run


# --- who sees it --------------------------------------------------------------------------------


def test_the_source_editor_shows_each_locale_with_translate_now(editor_client, site_tree):
    article = site_tree["articles"][0]

    html = edit_page(editor_client, article).content.decode()

    assert PANEL in html
    assert panel_rows(html) == {"de": "missing", "es": "missing", "fr": "missing"}
    assert translate_now_url(article, Locale.objects.get(language_code="fr")) in html.replace(
        "&amp;", "&"
    )


def test_users_without_the_permission_see_no_panel(outsider_client, site_tree):
    response = edit_page(outsider_client, site_tree["articles"][0])

    assert response.status_code == 200
    assert PANEL not in response.content.decode()


def test_the_states_follow_the_translations(editor_client, site_tree, start, task_queue, superuser):
    article = site_tree["articles"][0]
    translate(start, task_queue, site_tree["home"], ["fr", "de", "es"], publish_policy="publish")
    translate(start, task_queue, site_tree["news"], ["fr", "de", "es"], publish_policy="publish")
    translate(start, task_queue, article, ["fr"], publish_policy="publish")
    translate(start, task_queue, article, ["de"])  # a draft
    article.save_revision(user=superuser).publish()  # after both: fr and de outdated
    translate(start, task_queue, article, ["es"], publish_policy="publish")

    html = edit_page(editor_client, article).content.decode()

    assert panel_rows(html) == {"de": "outdated", "es": "up_to_date", "fr": "outdated"}
    assert "edited by root" in html.replace("\n", " ") or "by root" in html


def test_a_target_shows_the_run_that_wrote_it_and_whether_the_source_changed(
    admin_client, site_tree, start, task_queue
):
    article = site_tree["articles"][0]
    article.save_revision().publish()
    translate(start, task_queue, site_tree["home"], publish_policy="publish")
    translate(start, task_queue, site_tree["news"], publish_policy="publish")
    run = translate(start, task_queue, article, publish_policy="publish")
    target = Page.objects.get(translation_key=article.translation_key, locale__language_code="fr")

    html = edit_page(admin_client, target).content.decode()

    assert reverse("wagtail_bulk_translate:inspect", args=[run.pk]) in html
    assert 'data-bt-source-changed="no"' in html and "data-bt-source-revision" in html
    article.refresh_from_db()
    article.save_revision().publish()
    assert 'data-bt-source-changed="yes"' in edit_page(admin_client, target).content.decode()


def test_the_snippet_editor_shows_the_panel(admin_client, site_tree):
    category = factories.category()
    url = reverse(category.snippet_viewset.get_url_name("edit"), args=[category.pk])

    html = admin_client.get(url).content.decode()

    assert PANEL in html and panel_rows(html)["fr"] == "missing"


# --- Translate now ------------------------------------------------------------------------------


def test_translate_now_starts_a_one_object_run_and_goes_to_its_page(
    reviewer_client, site_tree, task_queue
):
    article = site_tree["articles"][0]
    url = translate_now_url(article, Locale.objects.get(language_code="fr"))
    assert reviewer_client.get(url).status_code == 200

    response = reviewer_client.post(url, {"locale": "fr", "publish_policy": "publish"})

    run = Run.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("wagtail_bulk_translate:inspect", args=[run.pk])
    assert run.scope["objects"] == [["demo.ArticlePage", str(article.pk)]]
    assert [locale.language_code for locale in run.target_locales.all()] == ["fr"]
    assert (run.mode, run.publish_policy, run.origin) == ("changed", "publish", RunOrigin.ADMIN)
    assert ModelLogEntry.objects.filter(action=STARTED, object_id=str(run.pk)).exists()


@pytest.mark.parametrize(
    "data, message",
    [
        ({"locale": "xx", "publish_policy": "draft"}, "There is no locale"),
        ({"locale": "en", "publish_policy": "draft"}, "own locale"),
        ({"locale": "fr", "publish_policy": "everything"}, "Select a valid choice"),
    ],
)
def test_bad_input_is_refused_with_a_reason_and_nothing_is_created(
    editor_client, site_tree, task_queue, data, message
):
    url = translate_now_url(site_tree["articles"][0])

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Run.objects.exists()


def test_a_page_the_editor_cannot_edit_is_refused(editor_client, site_tree, task_queue):
    url = translate_now_url(site_tree["secret"])

    response = editor_client.post(url, {"locale": "fr", "publish_policy": "draft"})

    assert "You cannot edit" in response.content.decode()
    assert not Run.objects.exists()


def test_a_target_the_editor_cannot_edit_is_refused(editor_client, site_tree, start, task_queue):
    article = site_tree["articles"][0]
    translate(start, task_queue, site_tree["home"], ["fr"])
    translate(start, task_queue, site_tree["news"], ["fr"])
    translate(start, task_queue, article, ["fr"])
    # The French tree is outside the News subtree the editor may edit.
    runs_before = Run.objects.count()

    response = editor_client.post(
        translate_now_url(article), {"locale": "fr", "publish_policy": "draft"}
    )

    assert "French translation" in response.content.decode() or "cannot" in (
        response.content.decode()
    )
    assert Run.objects.count() == runs_before


def test_without_the_permission_translate_now_answers_as_for_a_missing_object(
    outsider_client, site_tree
):
    existing = translate_now_url(site_tree["articles"][0])
    missing = reverse(URL_NAME, args=["demo", "articlepage", "999999"])

    for url in (existing, missing):
        assert is_404(outsider_client.get(url))
        assert is_404(outsider_client.post(url, {"locale": "fr", "publish_policy": "draft"}))
    assert not Run.objects.exists()


def test_unknown_objects_are_404(editor_client, site_tree):
    for args in (
        ["demo", "articlepage", "999999"],
        ["demo", "nothing", "1"],
        ["auth", "user", "1"],
    ):
        response = editor_client.get(reverse(URL_NAME, args=args), follow=True)
        assert response.status_code == 404


def test_the_editor_costs_no_more_queries_with_more_locales(
    editor_client, site_tree, start, task_queue, count_queries
):
    article = site_tree["articles"][0]
    translate(start, task_queue, site_tree["home"], ["fr", "de"], publish_policy="publish")
    translate(start, task_queue, site_tree["news"], ["fr", "de"], publish_policy="publish")
    translate(start, task_queue, article, ["fr", "de"], publish_policy="publish")
    edit_page(editor_client, article)  # warm caches (content types, site root paths)
    with count_queries() as few:
        edit_page(editor_client, article)

    for code in ("it", "nl", "pt"):
        Locale.objects.create(language_code=code)
    with count_queries() as more:
        html = edit_page(editor_client, article).content.decode()

    assert len(panel_rows(html)) == 6
    assert len(more.captured_queries) <= len(few.captured_queries) + 2


def test_publishing_needs_the_publish_permission(client, django_user_model, site_tree):
    root = Page.get_first_root_node()
    user = admin_user(django_user_model, "drafter", manage_runs=True, pages=[])
    group = user.groups.get()
    for codename in ("add_page", "change_page"):  # no publish_page
        GroupPagePermission.objects.create(
            group=group, page=root, permission=Permission.objects.get(codename=codename)
        )
    client.force_login(user)
    url = translate_now_url(site_tree["articles"][0])

    refused = client.post(url, {"locale": "fr", "publish_policy": "publish"})

    assert "may not publish its French translation" in refused.content.decode()
    assert not Run.objects.exists()
    started = client.post(url, {"locale": "fr", "publish_policy": "draft"})
    assert started.status_code == 302 and Run.objects.get().publish_policy == "draft"


def test_the_source_s_rights_do_not_stand_for_a_missing_target(client, bilingual, task_queue):
    """An editor of the English tree only, publishing a page that has no French version yet:
    refused, and no French page is created (nor its missing parents)."""
    client.force_login(bilingual.english_editor)
    french_before = Page.objects.filter(locale=bilingual.fr).count()

    response = client.post(
        translate_now_url(bilingual.story), {"locale": "fr", "publish_policy": "publish"}
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert "may not add pages under “Nouvelles, écrites à la main” in French" in html
    assert not Run.objects.exists()
    task_queue.drain()
    assert Page.objects.filter(locale=bilingual.fr).count() == french_before
