"""Preflight: counts, billable characters after translation memory, cost, warnings."""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from wagtail.models import Locale, Site

from demo.models import ArticlePage, SocialLinks
from tests import factories
from tests.fake_deepl import fake_deepl  # noqa: F401
from tests.translator_doubles import translator_setting
from wagtail_bulk_translate.errors import RunConfigurationError
from wagtail_bulk_translate.management.reporting import format_preflight, format_summary
from wagtail_bulk_translate.models import Run
from wagtail_bulk_translate.runs.preflight import billed_length, preflight
from wagtail_bulk_translate.runs.summary import run_summary
from wagtail_bulk_translate.scope.whole_site import whole_site_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared_sentence_tree():
    home = factories.home_page("Home")
    news = factories.index_page(home, "News")
    shared = [factories.block("paragraph", factories.rich("The <b>same</b> sentence."))]
    factories.article(news, "One", body=shared, summary="")
    factories.article(news, "Two", body=shared, summary="")
    return home


def scope_of(page) -> dict:
    return {"pages": [{"id": page.pk, "descendants": True}]}


def test_counts_units_per_model_exactly(shared_sentence_tree):
    result = preflight(scope_of(shared_sentence_tree), "en", ["fr", "de"])
    assert result.objects_by_model == {
        "demo.ArticleIndexPage": 1,
        "demo.ArticlePage": 2,
        "demo.HomePage": 1,
    }
    assert result.units_by_model["demo.ArticlePage"] == 4
    assert result.units_total == 8
    assert result.exact


def test_billable_characters_are_distinct_texts_without_markup(shared_sentence_tree):
    result = preflight(scope_of(shared_sentence_tree), "en", ["fr"])
    texts = {"Home", "News", "One", "Two", "The <b>same</b> sentence."}
    assert result.strings_to_translate["fr"] == len(texts)
    assert result.characters_to_bill["fr"] == sum(billed_length(t) for t in texts)
    assert billed_length("The <b>same</b> sentence.") == len("The same sentence.")


def test_translation_memory_makes_known_texts_free(shared_sentence_tree, start, task_queue):
    before = preflight(scope_of(shared_sentence_tree), "en", ["fr"]).characters_to_bill["fr"]
    start(scope=scope_of(shared_sentence_tree), source_locale="en", target_locales=["fr"])
    task_queue.drain()
    after = preflight(scope_of(shared_sentence_tree), "en", ["fr", "de"])
    assert before > 0
    assert after.characters_to_bill["fr"] == 0
    assert after.characters_to_bill["de"] == before
    assert preflight(
        scope_of(shared_sentence_tree), "en", ["fr"], mode="refresh"
    ).characters_to_bill["fr"] == (before)


def test_cost_uses_the_configured_price(shared_sentence_tree, settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "PRICE_PER_MILLION_CHARACTERS": 1_000_000,
        "CURRENCY": "USD",
    }
    result = preflight(scope_of(shared_sentence_tree), "en", ["fr"])
    assert result.estimated_cost == Decimal(result.total_characters)
    assert result.currency == "USD"


def test_a_large_scope_is_sampled_and_says_so(shared_sentence_tree):
    result = preflight(scope_of(shared_sentence_tree), "en", ["fr"], sample_size=2)
    assert not result.exact
    assert result.sampled_objects == 2
    assert any("estimated from 2 objects" in w for w in result.warnings)


def test_unsupported_locales_are_reported_and_refused(shared_sentence_tree, settings, start):
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "TRANSLATOR": translator_setting(UNSUPPORTED=["es"]),
    }
    result = preflight(scope_of(shared_sentence_tree), "en", ["fr", "es"])
    assert result.unsupported_locales == ["es"]
    with pytest.raises(RunConfigurationError, match="cannot translate from en into es"):
        start(scope=scope_of(shared_sentence_tree), source_locale="en", target_locales=["fr", "es"])
    assert not Run.objects.exists()


def test_cli_estimate_starts_nothing(shared_sentence_tree):
    out = StringIO()
    call_command(
        "bulk_translate", "start", "--subtree", str(shared_sentence_tree.pk), "--locales", "fr",
        "--estimate", "--json", stdout=out, stderr=StringIO(),
    )  # fmt: skip
    report = json.loads(out.getvalue())
    assert report["units_total"] == 4
    assert report["exact"] is True
    assert not Run.objects.exists()
    assert Locale.objects.filter(language_code="fr").exists()


@pytest.fixture
def deepl_configured(settings, fake_deepl):  # noqa: F811
    """New runs and preflights use DeepL on the fake server."""
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "TRANSLATOR": {
            "CLASS": "wagtail_bulk_translate.translators.deepl.DeepLTranslator",
            "OPTIONS": {
                "AUTH_KEY": "test:fx",
                "SERVER_URL": fake_deepl.url,
                "RETRY_BACKOFF_SECONDS": 0.01,
                "RETRIES": 0,
            },
        },
    }
    return fake_deepl


def test_preflight_with_deepl_reports_its_quota(shared_sentence_tree, deepl_configured):
    deepl_configured.character_limit = 20
    deepl_configured.character_count = 5

    result = preflight(scope_of(shared_sentence_tree), "en", ["fr", "de"])

    assert (result.usage.characters_used, result.usage.character_limit) == (5, 20)
    assert result.usage.remaining == 15
    assert result.total_characters > 15
    assert any("only 15 are left" in warning for warning in result.warnings)
    assert json.loads(json.dumps(result.as_dict()))["usage"] == {
        "characters_used": 5,
        "character_limit": 20,
        "remaining": 15,
    }
    assert deepl_configured.texts_sent() == []  # a preflight translates nothing


def test_preflight_with_deepl_warns_when_the_quota_cannot_be_read(
    shared_sentence_tree, deepl_configured
):
    deepl_configured.rejected_keys.add("test:fx")

    result = preflight(scope_of(shared_sentence_tree), "en", ["fr"])

    assert result.usage is None
    assert any("usage could not be read" in warning for warning in result.warnings)
    assert result.characters_to_bill["fr"] > 0


# --- refused locales, unpublished changes, models that cannot be translated --------------------


def test_a_refused_locale_is_listed_and_not_counted_in_the_cost(shared_sentence_tree, settings):
    alone = preflight(scope_of(shared_sentence_tree), "en", ["fr"])
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "TRANSLATOR": translator_setting(UNSUPPORTED=["es"]),
    }

    result = preflight(scope_of(shared_sentence_tree), "en", ["fr", "es"])

    assert result.unsupported_locales == ["es"]
    assert set(result.characters_to_bill) == {"fr"}
    assert result.total_characters == alone.total_characters
    assert result.estimated_cost == alone.estimated_cost
    assert result.units_total == alone.units_total
    assert result.as_dict()["unsupported_locales"] == ["es"]


def test_objects_with_unpublished_changes_are_counted_with_the_content_used(shared_sentence_tree):
    article = shared_sentence_tree.get_descendants().type(ArticlePage).first().specific
    article.title = "One, edited"
    article.save_revision()  # a draft: the live page is unchanged

    live = preflight(scope_of(shared_sentence_tree), "en", ["fr"])
    draft = preflight(scope_of(shared_sentence_tree), "en", ["fr"], content_source="draft")

    assert (live.unpublished_changes, live.content_source) == (1, "live")
    assert (draft.unpublished_changes, draft.content_source) == (1, "draft")
    assert live.as_dict()["unpublished_changes"] == 1
    assert "1 object(s) have unpublished changes" in format_preflight(live)
    assert "--content draft" in format_preflight(live)


def test_a_site_setting_with_no_site_in_another_locale_costs_nothing_and_says_why(
    shared_sentence_tree,
):
    row = SocialLinks.objects.create(
        site=Site.objects.get(is_default_site=True), newsletter_pitch="Read our letter."
    )

    result = preflight({"objects": [["demo.SocialLinks", str(row.pk)]]}, "en", ["fr"])

    assert result.units_total == 0
    assert result.strings_to_translate == {"fr": 0}
    assert result.total_characters == 0
    assert [item.model for item in result.untranslatable] == ["demo.SocialLinks"]
    assert "SITE_LOCALES" in result.untranslatable[0].fix
    assert "Cannot translate demo.SocialLinks" in format_preflight(result)


def test_whole_site_lists_generic_settings_without_translatable_mixin(
    shared_sentence_tree, monkeypatch
):
    from django.contrib.auth.models import Group

    from wagtail_bulk_translate.scope import readiness

    # Stands in for a BaseGenericSetting without TranslatableMixin registered as a setting.
    monkeypatch.setattr(readiness, "registry", [*readiness.registry, Group])
    source = Locale.objects.get(language_code="en")

    result = preflight(whole_site_scope(source), "en", ["fr"])

    plain = {item.model: item for item in result.untranslatable}
    assert "auth.Group" in plain
    assert "TranslatableGenericSetting" in plain["auth.Group"].fix
    assert "demo.SiteBranding" not in plain
    assert result.as_dict()["untranslatable"][0]["model"] in plain


def test_the_estimate_and_the_run_name_the_translator_and_count_what_is_sent_alike(
    shared_sentence_tree, start, task_queue, recording_translator
):
    scope = scope_of(shared_sentence_tree)
    estimate = preflight(scope, "en", ["fr"])
    run = start(scope=scope, source_locale="en", target_locales=["fr"])
    task_queue.drain()

    summary = run_summary(run)
    assert summary["translator"] == estimate.translator == "RecordingTranslator"
    assert estimate.exact
    assert summary["texts_sent"] == estimate.as_dict()["texts_to_send"]["fr"]
    assert summary["characters_sent"] == estimate.as_dict()["characters_to_send"]["fr"] > 0
    assert summary["billed_characters"] == 0  # this translator reports no bill
    text = format_summary(summary)
    assert "with RecordingTranslator" in text
    assert f"sent to the translator: {summary['texts_sent']} text(s)" in text
    assert "To send to RecordingTranslator (exact):" in format_preflight(estimate)


def test_changed_mode_counts_and_prices_only_units_with_work_to_do(
    shared_sentence_tree, start, task_queue, recording_translator
):
    scope = scope_of(shared_sentence_tree)
    first = preflight(scope, "en", ["fr", "de"])
    assert first.units_needing_work == first.units_total == 8  # nothing translated yet
    start(scope=scope, source_locale="en", target_locales=["fr"], publish_policy="publish")
    task_queue.drain()

    after = preflight(scope, "en", ["fr", "de"])
    assert after.units_total == 8 and after.units_needing_work == 4  # German only
    assert after.strings_to_translate["fr"] == 0

    article = ArticlePage.objects.get(title="One", locale__language_code="en")
    article.title = "One, edited"
    article.save_revision().publish()
    edited = preflight(scope, "en", ["fr"])
    assert edited.units_needing_work == 1
    assert edited.strings_to_translate["fr"] == 1  # the new title; the rest is in memory
    assert "with work to do: 1" in format_preflight(edited)
    assert preflight(scope, "en", ["fr"], mode="refresh").units_needing_work is None
