"""The "Translate…" bulk actions: access, the three steps, per-object permissions, bad input."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from wagtail.models import GroupPagePermission, Locale, ModelLogEntry

from tests import factories
from tests.admin.conftest import admin_user
from wagtail_bulk_translate.admin.log_actions import STARTED
from wagtail_bulk_translate.models import Run

pytestmark = pytest.mark.django_db

OPTIONS = {
    "target_locales": ["fr", "de"],
    "mode": "changed",
    "publish_policy": "draft",
    "content_source": "live",
    "use_canary": "on",
    "canary_size": "5",
    "include_descendants": "on",
}


def action_url(model: str, ids, **params) -> str:
    app_label, model_name = model.split(".")
    base = reverse("wagtail_bulk_action", args=[app_label, model_name, "translate"])
    return base + "?" + urlencode([*(("id", pk) for pk in ids), *params.items()])


def pages_url(*pages, **params) -> str:
    return action_url("wagtailcore.page", [page.pk for page in pages], **params)


def start(client, url: str, data: dict, **extra):
    """Post the options (the preflight step), then start with the estimate it signed."""
    preflight = client.post(url, data)
    if preflight.status_code != 200 or "signed_estimate" not in preflight.context:
        return preflight
    estimate = preflight.context["signed_estimate"]
    return client.post(url, {**data, "action": "start", "estimate": estimate, **extra})


# --- access -------------------------------------------------------------------------------------


def test_anonymous_is_sent_to_login(client, site_tree):
    response = client.get(pages_url(site_tree["news"]))
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_user_without_the_permission_gets_403(outsider_client, site_tree):
    assert outsider_client.get(pages_url(site_tree["news"])).status_code == 403
    started = outsider_client.post(pages_url(site_tree["news"]), {**OPTIONS, "action": "start"})
    assert started.status_code == 403
    assert not Run.objects.exists()


def test_the_action_is_offered_in_the_page_explorer(admin_client, site_tree):
    html = admin_client.get(reverse("wagtailadmin_explore", args=[site_tree["news"].pk])).content
    assert b"Translate\xe2\x80\xa6" in html
    assert (
        reverse("wagtail_bulk_action", args=["wagtailcore", "page", "translate"]).encode() in html
    )


def test_only_translatable_snippet_models_get_the_action(admin_client):
    factories.category()
    url = reverse("wagtailsnippets_demo_category:list")
    html = admin_client.get(url).content
    assert reverse("wagtail_bulk_action", args=["demo", "category", "translate"]).encode() in html
    users = admin_client.get(action_url("auth.user", [1]), follow=True)
    assert users.status_code == 404


def test_wrong_method_is_refused(admin_client, site_tree):
    assert admin_client.delete(pages_url(site_tree["news"])).status_code == 405


# --- the three steps -----------------------------------------------------------------------------


def test_options_step_lists_the_selection_and_the_source_locale(editor_client, site_tree):
    response = editor_client.get(pages_url(*site_tree["articles"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Translate these 2 items from English" in html
    assert "First" in html and "Second" in html
    assert 'name="include_descendants"' in html
    assert 'name="target_locales"' in html
    assert 'value="en"' not in html  # the source of the selection is no target
    assert "Check what it will translate" in html


def test_preflight_step_shows_the_numbers_and_starts_nothing(editor_client, site_tree):
    response = editor_client.post(pages_url(site_tree["news"]), OPTIONS)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Before you start" in html
    preflight = response.context["estimate"]
    # The untranslated parent (Home) is translated first: it is part of the run.
    assert preflight.objects_by_model == {
        "demo.ArticleIndexPage": 1,
        "demo.ArticlePage": 2,
        "demo.HomePage": 1,
    }
    assert preflight.units_total >= 6
    assert 'name="estimate"' in html
    assert "Start the canary" in html
    assert response.context["rows"]["models"][0][0] == "Article index pages"
    assert not Run.objects.exists()


def test_confirm_starts_a_run_of_exactly_the_selection(
    editor_client, editor, site_tree, task_queue, django_capture_on_commit_callbacks
):
    first, second = site_tree["articles"]
    data = {**OPTIONS, "include_descendants": ""}
    with django_capture_on_commit_callbacks(execute=True):
        response = start(editor_client, pages_url(first, second), data)

    run = Run.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("wagtail_bulk_translate:inspect", args=[run.pk])
    assert run.scope["pages"] == [
        {"id": first.pk, "descendants": False},
        {"id": second.pk, "descendants": False},
    ]
    assert run.created_by == editor
    assert run.canary_size == 5
    assert sorted(run.target_locales.values_list("language_code", flat=True)) == ["de", "fr"]
    entry = ModelLogEntry.objects.get(action=STARTED)
    assert entry.user == editor and entry.object_id == str(run.pk)
    assert task_queue.names()  # the coordinator is queued


def test_change_options_goes_back_to_the_form(editor_client, site_tree):
    response = editor_client.post(pages_url(site_tree["news"]), {**OPTIONS, "action": "edit"})
    assert response.status_code == 200
    assert "estimate" not in response.context
    assert response.context["form"]["canary_size"].value() == "5"


def test_cost_above_the_threshold_needs_a_tick(editor_client, site_tree, settings, task_queue):
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "CONFIRM_ABOVE_COST": 0,
        "PRICE_PER_MILLION_CHARACTERS": 1_000_000,
    }
    url = pages_url(site_tree["news"])
    preflight = editor_client.post(url, OPTIONS)
    assert preflight.context["needs_cost_confirmation"]
    assert 'name="confirm_cost"' in preflight.content.decode()

    refused = start(editor_client, url, OPTIONS)
    assert refused.status_code == 200
    assert "tick the box" in refused.context["form"].errors["confirm_cost"][0]
    assert not Run.objects.exists()

    started = start(editor_client, url, OPTIONS, confirm_cost="on")
    assert started.status_code == 302
    assert Run.objects.count() == 1


def test_snippet_action_scopes_the_selected_objects(admin_client, superuser, task_queue):
    travel, food = factories.category("Travel"), factories.category("Food")
    factories.category("Not selected")
    url = action_url("demo.category", [travel.pk, food.pk])
    html = admin_client.get(url).content.decode()
    assert "Travel" in html and "Food" in html and 'name="include_descendants"' not in html

    response = start(admin_client, url, {**OPTIONS, "use_canary": ""})

    run = Run.objects.get()
    assert response.status_code == 302
    assert run.scope["objects"] == [
        ["demo.Category", str(travel.pk)],
        ["demo.Category", str(food.pk)],
    ]
    assert run.canary_size is None


# --- per-object permissions ----------------------------------------------------------------------


def test_pages_the_user_cannot_edit_are_listed_and_left_out(editor_client, site_tree, task_queue):
    news, secret = site_tree["news"], site_tree["secret"]
    html = editor_client.get(pages_url(news, secret)).content.decode()
    assert "You cannot edit this item, so it will not be translated" in html
    assert "Secret" in html

    start(editor_client, pages_url(news, secret), OPTIONS)

    assert Run.objects.get().scope["pages"] == [{"id": news.pk, "descendants": True}]


def test_nothing_editable_offers_only_going_back(editor_client, site_tree):
    response = editor_client.get(pages_url(site_tree["secret"]))
    html = response.content.decode()
    assert "Go back" in html and 'name="target_locales"' not in html
    start(editor_client, pages_url(site_tree["secret"]), OPTIONS)
    assert not Run.objects.exists()


def test_a_subtree_with_pages_the_user_cannot_edit_is_refused_naming_them(
    client, django_user_model, site_tree
):
    # "Add" permission lets a user edit only the pages they own: News, not its articles.
    user = admin_user(django_user_model, "author", manage_runs=True)
    GroupPagePermission.objects.create(
        group=user.groups.get(),
        page=site_tree["news"],
        permission=Permission.objects.get(codename="add_page"),
    )
    site_tree["news"].owner = user
    site_tree["news"].save()
    client.force_login(user)

    response = start(client, pages_url(site_tree["news"]), OPTIONS)

    assert response.status_code == 200
    errors = response.context["form"].non_field_errors()
    assert "You cannot edit these pages" in errors[0]
    assert "First" in errors[0] and "Second" in errors[0]
    assert not Run.objects.exists()


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"target_locales": []}, "target_locales", "Choose at least one target locale"),
        ({"target_locales": ["en"]}, "target_locales", "Select a valid choice"),
        ({"canary_size": "0"}, "canary_size", "greater than or equal to 1"),
        ({"canary_size": "many"}, "canary_size", "whole number"),
        ({"mode": "overwrite"}, "confirm_overwrite", "tick this box"),
        ({"mode": "everything"}, "mode", "Select a valid choice"),
    ],
)
def test_bad_options_get_field_errors(admin_client, site_tree, change, field, message):
    data = {**OPTIONS, **change, "action": "start"}
    response = admin_client.post(pages_url(site_tree["news"]), data)
    assert response.status_code == 200
    assert message in " ".join(response.context["form"].errors[field])
    assert not Run.objects.exists()


def test_selected_ids_that_do_not_exist_are_a_404_not_a_crash(admin_client, site_tree):
    for url in (
        action_url("wagtailcore.page", ["abc"]),
        action_url("wagtailcore.page", [999_999]),
        action_url("demo.category", ["x"]),
    ):
        # (404s of unprefixed URLs are redirected to the language-prefixed URL first)
        assert admin_client.get(url, follow=True).status_code == 404


def test_items_of_several_locales_are_refused(admin_client, site_tree):
    fr = Locale.objects.get(language_code="fr")
    news_fr = site_tree["news"].copy_for_translation(fr, copy_parents=True)
    response = admin_client.get(pages_url(site_tree["articles"][0], news_fr))
    html = response.content.decode()
    assert "several locales" in html and 'name="target_locales"' not in html
    start(admin_client, pages_url(site_tree["articles"][0], news_fr), OPTIONS)
    assert not Run.objects.exists()


def test_an_engine_refusal_is_shown_on_the_form(admin_client, site_tree, settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "TRANSLATOR": {"CLASS": "no.such.Translator"},
    }
    response = start(admin_client, pages_url(site_tree["news"]), OPTIONS)
    assert response.status_code == 200
    errors = " ".join(response.context["form"].non_field_errors())
    assert "'no.such.Translator' cannot be imported" in errors
    assert not Run.objects.exists()
    assert not ModelLogEntry.objects.filter(action=STARTED).exists()


def test_a_tampered_or_stale_estimate_gets_a_fresh_preflight(admin_client, site_tree):
    url = pages_url(site_tree["news"])
    response = admin_client.post(url, {**OPTIONS, "action": "start", "estimate": "forged"})
    assert response.status_code == 200
    assert "signed_estimate" in response.context  # the preflight again, nothing started
    preflight = admin_client.post(url, OPTIONS)
    changed = {**OPTIONS, "target_locales": ["es"]}  # the estimate was for fr and de
    estimate = preflight.context["signed_estimate"]
    response = admin_client.post(url, {**changed, "action": "start", "estimate": estimate})
    assert response.status_code == 200 and "signed_estimate" in response.context
    assert not Run.objects.exists()


# --- an editor limited to the English tree ------------------------------------------------------


def test_overwrite_and_publish_leave_the_french_team_s_page_alone(
    client, bilingual, task_queue, recording_translator, django_capture_on_commit_callbacks
):
    """The editor may add and edit the English pages, nothing French, and publish nothing."""
    client.force_login(bilingual.english_editor)
    live_revision = bilingual.news_fr.live_revision_id
    options = {
        **OPTIONS,
        "target_locales": ["fr"],
        "mode": "overwrite",
        "confirm_overwrite": "on",
        "publish_policy": "publish",
        "use_canary": "",
    }

    preflight = client.post(pages_url(bilingual.news), options)
    assert preflight.context["estimate"].units_not_permitted == 3  # Home, News and Story
    with django_capture_on_commit_callbacks(execute=True):
        response = start(client, pages_url(bilingual.news), options)
    assert response.status_code == 302
    task_queue.drain()

    bilingual.news_fr.refresh_from_db()
    assert bilingual.news_fr.title == "Nouvelles, écrites à la main"
    assert bilingual.news_fr.live_revision_id == bilingual.news_fr.latest_revision_id
    assert bilingual.news_fr.live_revision_id == live_revision
    run = Run.objects.get()
    assert set(run.units.values_list("error_code", flat=True)) == {"not_permitted"}
    page = client.get(reverse("wagtail_bulk_translate:inspect", args=[run.pk])).content.decode()
    assert "english may not edit its French translation, “Nouvelles, écrites à la main”" in page


def test_a_snippet_translation_needs_the_model_s_add_permission(
    client, bilingual, task_queue, recording_translator, django_capture_on_commit_callbacks
):
    user = factories.editor("snippets", permissions=("change_category",))  # no add_category
    client.force_login(user)
    url = action_url("demo.category", [bilingual.category.pk])
    options = {**OPTIONS, "target_locales": ["fr"], "use_canary": ""}

    assert client.post(url, options).context["estimate"].units_not_permitted == 1
    with django_capture_on_commit_callbacks(execute=True):
        start(client, url, options)
    task_queue.drain()

    unit = Run.objects.get().units.get()
    assert unit.error_code == "not_permitted"
    assert "snippets may not add categories" in unit.error_message
    assert not type(bilingual.category).objects.filter(locale=bilingual.fr).exists()
