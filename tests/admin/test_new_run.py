"""The new-run wizard: form, preflight, start; pre-filling; bad input; permissions."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from wagtail.models import ModelLogEntry, Site

from demo.models import SocialLinks
from tests import factories
from wagtail_bulk_translate.models import Run

pytestmark = pytest.mark.django_db


def url() -> str:
    return reverse("wagtail_bulk_translate:add")


def form_data(**overrides) -> dict:
    data = {
        "source_locale": "en",
        "target_locales": ["fr", "de"],
        "mode": "changed",
        "publish_policy": "draft",
        "content_source": "live",
        "use_canary": "on",
        "canary_size": "5",
        "pages-TOTAL_FORMS": "1",
        "pages-INITIAL_FORMS": "0",
        "pages-MIN_NUM_FORMS": "1",
        "pages-MAX_NUM_FORMS": "50",
        "pages-0-page": "",
        "pages-0-descendants": "on",
        "action": "preflight",
    }
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not None}


def hidden_inputs(html: str) -> dict:
    """The confirm form's fields, as the browser would post them back."""
    form = html[html.index("data-bt-confirm-form") :]
    data: dict = {}
    for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form):
        data.setdefault(name, []).append(value)
    return data


def test_anonymous_is_sent_to_login(client):
    response = client.get(url())
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_user_without_permission_gets_403(outsider_client):
    assert outsider_client.get(url()).status_code == 403
    assert outsider_client.post(url(), form_data()).status_code == 403
    assert not Run.objects.exists()


def test_form_lists_snippet_and_setting_types_with_counts(admin_client, site_tree):
    factories.category("Travel")
    factories.category("Food")
    html = admin_client.get(url()).content.decode()
    assert "Categories (2)" in html
    assert 'value="demo.Category"' in html
    assert "help" in html and "Every object of these snippet types" in html


def test_get_parameters_prefill_the_form(admin_client, site_tree):
    news = site_tree["news"]
    query = (
        f"?pages={news.pk}&snippets=demo.Category&targets=fr&targets=de"
        "&mode=refresh&source=en&settings=demo.Nope&pages=99999&targets=xx"
    )
    response = admin_client.get(url() + query)
    assert response.status_code == 200
    form = response.context["form"]
    assert form.initial["snippets"] == ["demo.Category"]
    assert form.initial["target_locales"] == ["fr", "de"]
    assert form.initial["mode"] == "refresh"
    assert form.initial["source_locale"] == "en"
    assert response.context["formset"].initial == [{"page": news.pk, "descendants": True}]
    warnings = [str(m) for m in response.context["messages"]]
    assert any("demo.Nope" in m for m in warnings)
    assert any("99999" in m for m in warnings)
    assert any("xx" in m for m in warnings)


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"target_locales": None}, "target_locales", "Choose at least one target locale"),
        ({"target_locales": ["en", "fr"]}, "target_locales", "English is the source locale"),
        ({"canary_size": "0"}, "canary_size", "greater than or equal to 1"),
        ({"canary_size": ""}, "canary_size", "at least 1"),
        ({"mode": "overwrite"}, "confirm_overwrite", "Overwrite replaces manual translations"),
        ({"mode": "sideways"}, "mode", "Select a valid choice"),
        ({"source_locale": "xx"}, "source_locale", "Select a valid choice"),
        ({"pages-0-page": "abc"}, None, "Select a valid choice"),
    ],
)
def test_bad_input_gets_field_errors(admin_client, site_tree, overrides, field, message):
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk), **overrides})
    response = admin_client.post(url(), data)
    assert response.status_code == 200
    html = response.content.decode()
    assert message in html
    if field:
        assert field in response.context["form"].errors
    assert not Run.objects.exists()


def test_empty_scope_is_a_field_error(admin_client, site_tree):
    response = admin_client.post(url(), form_data())
    assert "Choose what to translate" in response.context["form"].errors["whole_site"][0]


def test_api_refusal_is_shown_as_a_form_error(admin_client, site_tree):
    french = site_tree["news"].copy_for_translation(factories.locales()["fr"], copy_parents=True)
    response = admin_client.post(url(), form_data(**{"pages-0-page": str(french.pk)}))
    assert response.status_code == 200
    assert "not in the source locale" in " ".join(response.context["form"].non_field_errors())


def test_add_page_adds_a_row_without_errors(admin_client, site_tree):
    response = admin_client.post(url(), form_data(action="add_page", target_locales=None))
    assert len(response.context["formset"].forms) == 2
    assert "Choose at least one target locale" not in response.content.decode()


def test_preflight_then_start(admin_client, site_tree, superuser, task_queue):
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk)})
    preflight = admin_client.post(url(), data)
    html = preflight.content.decode()
    assert preflight.status_code == 200 and "data-bt-preflight-result" in html
    # News, its 2 articles and their untranslated parent (Home), into 2 locales
    assert preflight.context["estimate"].units_total == 8
    assert not Run.objects.exists()
    confirm = hidden_inputs(html)
    response = admin_client.post(url(), {**confirm, "action": "start"})
    run = Run.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("wagtail_bulk_translate:inspect", args=[run.pk])
    assert run.canary_size == 5 and run.created_by == superuser
    assert run.scope["pages"] == [{"id": site_tree["news"].pk, "descendants": True}]
    assert run.estimated_characters == preflight.context["estimate"].total_characters
    entry = ModelLogEntry.objects.get(action="wagtail_bulk_translate.run.started")
    assert entry.user == superuser and entry.object_id == str(run.pk)


def test_tampered_estimate_gets_a_fresh_preflight(admin_client, site_tree, task_queue):
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk)})
    confirm = hidden_inputs(admin_client.post(url(), data).content.decode())
    confirm["estimate"] = ["forged"]
    response = admin_client.post(url(), {**confirm, "action": "start"})
    assert response.status_code == 200 and "data-bt-preflight-result" in response.content.decode()
    assert not Run.objects.exists()


def test_changed_request_gets_a_fresh_preflight(admin_client, site_tree, task_queue):
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk)})
    confirm = hidden_inputs(admin_client.post(url(), data).content.decode())
    confirm["target_locales"] = ["fr", "de", "es"]
    response = admin_client.post(url(), {**confirm, "action": "start"})
    assert response.status_code == 200 and not Run.objects.exists()


def test_cost_above_threshold_needs_confirmation(admin_client, site_tree, settings, task_queue):
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "CONFIRM_ABOVE_COST": 0,
        "PRICE_PER_MILLION_CHARACTERS": 1_000_000,
    }
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk)})
    preflight = admin_client.post(url(), data)
    assert preflight.context["needs_cost_confirmation"]
    confirm = hidden_inputs(preflight.content.decode())
    refused = admin_client.post(url(), {**confirm, "action": "start"})
    assert "tick the box to start it anyway" in refused.content.decode()
    assert not Run.objects.exists()
    accepted = admin_client.post(url(), {**confirm, "action": "start", "confirm_cost": "on"})
    assert accepted.status_code == 302 and Run.objects.count() == 1


def test_editor_cannot_start_over_pages_they_cannot_edit(editor_client, site_tree):
    data = form_data(whole_site="on")
    response = editor_client.post(url(), data)
    errors = " ".join(response.context["form"].non_field_errors())
    assert "You cannot edit these pages" in errors
    assert "“Home”" in errors and "“Private”" in errors and "“Secret”" in errors
    assert "“First”" not in errors
    assert not Run.objects.exists()


def test_editor_can_start_over_their_pages(editor_client, site_tree, task_queue):
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk)})
    confirm = hidden_inputs(editor_client.post(url(), data).content.decode())
    response = editor_client.post(url(), {**confirm, "action": "start"})
    assert response.status_code == 302 and Run.objects.count() == 1


def test_editor_without_snippet_permission_is_refused(editor_client, site_tree):
    response = editor_client.post(url(), form_data(snippets=["demo.Category"]))
    assert "You cannot edit categories" in " ".join(response.context["form"].non_field_errors())


def test_every_mistake_shows_at_once(admin_client, site_tree):
    response = admin_client.post(url(), form_data(target_locales=None))
    errors = response.context["form"].errors
    assert "whole_site" in errors and "target_locales" in errors
    assert "correct the errors below" in " ".join(str(m) for m in response.context["messages"])


def test_a_new_page_row_includes_descendants_by_default(admin_client, site_tree):
    response = admin_client.post(url(), form_data(action="add_page"))
    new_row = response.context["formset"].forms[1]
    assert new_row["descendants"].value() is True


def test_preflight_shows_the_quota_left(admin_client, site_tree, settings):
    from tests.fake_deepl import FakeDeepL

    with FakeDeepL(character_limit=1000) as deepl:
        settings.WAGTAIL_BULK_TRANSLATE = {
            **settings.WAGTAIL_BULK_TRANSLATE,
            "TRANSLATOR": {
                "CLASS": "wagtail_bulk_translate.translators.deepl.DeepLTranslator",
                "OPTIONS": {"AUTH_KEY": "key", "SERVER_URL": deepl.url},
            },
        }
        data = form_data(**{"pages-0-page": str(site_tree["news"].pk)})
        html = admin_client.post(url(), data).content.decode()
    quota = html[html.index("data-bt-quota") :]
    assert "1,000 of 1,000 characters" in quota[:200]


def test_preflight_shows_the_budgets_left_and_warns_above_them(admin_client, site_tree, conf):
    conf(BUDGETS={"daily": {"characters": 3}})
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk)})
    html = admin_client.post(url(), data).content.decode()
    budgets = html[html.index("data-bt-budgets") :]
    assert "the daily cap (all runs): 3 of 3 characters left today" in budgets[:300]
    warnings = html[html.index("data-bt-preflight-warnings") :]
    assert "The estimate is more than what is left of the daily cap" in warnings[:1500]


def test_a_canary_as_large_as_the_scope_says_so(admin_client, site_tree):
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk), "canary_size": "8"})
    html = admin_client.post(url(), data).content.decode()
    assert "The scope has only 8 units, so the canary covers all of it." in html
    assert "data-bt-start" in html


def test_a_canary_larger_than_the_run_is_refused_with_the_reason(admin_client, site_tree):
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk), "canary_size": "50"})
    html = admin_client.post(url(), data).content.decode()

    assert "A canary of 50 units is larger than the whole run (8 units)" in html
    assert "Choose at most 8" in html
    assert "data-bt-start-refused" in html and "data-bt-start>" not in html
    # Posting "start" anyway (the preflight's own hidden fields) starts nothing either.
    started = admin_client.post(url(), {**hidden_inputs(html), "action": "start"})
    assert started.status_code == 200 and not Run.objects.exists()


def test_a_missing_deepl_key_is_shown_on_the_new_run_form(
    admin_client, site_tree, settings, monkeypatch
):
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": {"CLASS": "wagtail_bulk_translate.translators.deepl.DeepLTranslator"}
    }

    response = admin_client.post(url(), form_data(**{"pages-0-page": str(site_tree["news"].pk)}))

    assert response.status_code == 200
    errors = " ".join(response.context["form"].non_field_errors())
    assert "The DeepL translator has no API key." in errors
    assert "DEEPL_AUTH_KEY" in errors
    assert not Run.objects.exists()


def test_starting_a_run_with_nothing_to_translate_is_refused_naming_why(
    admin_client, site_tree, task_queue
):
    # A per-site setting, and no site serves fr or de: the run would have no unit.
    SocialLinks.objects.create(site=Site.objects.get(is_default_site=True))
    data = form_data(**{"settings": ["demo.SocialLinks"], "use_canary": None})
    confirm = hidden_inputs(admin_client.post(url(), data).content.decode())

    # A forged start: the preflight comes back with the reason and no Start.
    response = admin_client.post(url(), {**confirm, "action": "start"})

    assert response.status_code == 200
    html = response.content.decode()
    assert "per-site settings are translated only into the locales of their sites" in html
    assert "data-bt-start-refused" in html and "data-bt-start>" not in html
    assert not Run.objects.exists()


def test_an_unknown_prefilled_mode_is_reported_not_ignored(admin_client, site_tree):
    response = admin_client.get(url() + "?mode=bogus")

    assert "mode" not in response.context["form"].initial
    warnings = [str(m) for m in response.context["messages"]]
    assert any("unknown mode: bogus" in m for m in warnings), warnings


def test_the_preflight_recaps_what_will_happen(admin_client, site_tree):
    data = form_data(
        **{"pages-0-page": str(site_tree["news"].pk), "use_canary": None},
        publish_policy="mirror",
        content_source="draft",
        mode="refresh",
    )
    html = admin_client.post(url(), data).content.decode()

    recap = html[html.index("data-bt-preflight-recap") :]
    assert "Refresh machine translations: every machine translation again" in recap
    assert "published where the source is live, saved as drafts where it is not" in recap
    assert "the latest draft of each page and snippet" in recap
    assert "Pseudo-localization: it writes visibly fake text" in recap


def test_a_canary_recap_says_drafts_whatever_the_publishing(admin_client, site_tree):
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk)}, publish_policy="publish")
    html = admin_client.post(url(), data).content.decode()

    assert "saved as drafts: a canary never publishes" in html


def test_an_empty_scope_cannot_start_and_says_why(admin_client, site_tree):
    data = form_data(snippets=["demo.Category"])  # no category exists
    data.pop("pages-0-page")

    html = admin_client.post(url(), data).content.decode()

    assert "Nothing to translate: the chosen pages, snippets and settings hold no object" in html
    assert "data-bt-start-refused" in html and "data-bt-start>" not in html


def test_only_chosen_page_types_are_translated(admin_client, site_tree, task_queue):
    prefilled = admin_client.get(url() + "?page_types=demo.ArticlePage&page_types=demo.Nope")
    assert prefilled.context["form"].initial["page_types"] == ["demo.ArticlePage"]
    assert any("demo.Nope" in str(m) for m in prefilled.context["messages"])

    data = form_data(
        **{"pages-0-page": str(site_tree["home"].pk)},
        page_types=["demo.ArticlePage"],
        use_canary=None,
    )
    preflight = admin_client.post(url(), data)
    estimate = preflight.context["estimate"]
    assert set(estimate.units_by_model) == {"demo.ArticlePage"}
    confirm = hidden_inputs(preflight.content.decode())
    admin_client.post(url(), {**confirm, "action": "start"})
    run = Run.objects.get()
    assert "demo.ArticlePage" not in run.scope["exclude_models"]
    assert {"demo.HomePage", "demo.ArticleIndexPage"} <= set(run.scope["exclude_models"])


def test_the_preflight_counts_what_the_editor_may_not_translate_or_publish(client, bilingual):
    both = factories.editor("both", pages=[bilingual.home, bilingual.home_fr])  # add + change
    client.force_login(bilingual.english_editor)
    data = form_data(target_locales=["fr"], **{"pages-0-page": str(bilingual.home.pk)})

    refused = client.post(url(), data)
    assert refused.context["estimate"].units_not_permitted == 3
    html = refused.content.decode()
    assert "3 of the 3 units are outside what your Wagtail permissions let you edit" in html

    client.force_login(both)
    estimate = client.post(url(), data).context["estimate"]
    assert (estimate.units_not_permitted, estimate.units_not_publishable) == (0, 3)
