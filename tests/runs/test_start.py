"""start_run: validation that creates nothing, the run it creates; run_summary: the report."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from wagtail.models import Page, Site

from demo.models import SocialLinks
from tests import factories as f
from tests.factories import subtree
from tests.translator_doubles import RECORDING_TRANSLATOR, translator_setting
from wagtail_bulk_translate.api import run_summary, start_run
from wagtail_bulk_translate.errors import BulkTranslateError, ErrorCode
from wagtail_bulk_translate.models import Run, RunStatus, Unit, UnitStatus

pytestmark = pytest.mark.django_db

LONG_TITLE = "x" * 300  # Page.title is max_length=255: the translated page cannot validate

SUMMARY_KEYS = {
    "translator",
    "translators",
    "characters_sent",
    "sent_without_answer",
    "tree_repairs",
    "budget",
    "translator_change",
    "glossary_warnings",
    "outcomes",
    "id",
    "status",
    "mode",
    "canary",
    "canary_size",
    "publish_policy",
    "content_source",
    "source_locale",
    "target_locales",
    "enumeration_done",
    "units_total",
    "units",
    "units_by_locale",
    "strings_translated",
    "billed_characters",
    "billed_characters_for_failed_units",
    "texts_sent",
    "spend",
    "errors",
    "created_at",
    "started_at",
    "finished_at",
    "duration_seconds",
    "error_code",
    "error_message",
}


# --- start_run: validation -------------------------------------------------------------------


def french_home(three_pages) -> dict:
    return subtree(three_pages.home.copy_for_translation(three_pages.locales["fr"]))


def french_category(three_pages) -> dict:
    copy = f.category().copy_for_translation(three_pages.locales["fr"])
    copy.save()
    return {"objects": [["demo.Category", str(copy.pk)]]}


# (id, start_run arguments replacing a valid request's (a function of the site), words the
# error must contain)
BAD_REQUESTS = [
    ("unknown-source", {"source_locale": "xx"}, "Unknown locale 'xx'"),
    ("unknown-target", {"target_locales": ["fr", "tlh"]}, "Unknown locale 'tlh'"),
    ("source-in-targets", {"target_locales": ["fr", "en"]}, "source locale en cannot also be"),
    ("no-targets", {"target_locales": []}, "at least one target locale"),
    ("empty-scope", {"scope": {}}, "scope is empty"),
    ("only-excludes", {"scope": {"exclude_models": ["demo.Category"]}}, "scope is empty"),
    ("bad-scope-key", {"scope": {"everything": True}}, "Unknown scope keys: everything"),
    ("not-translatable", {"scope": {"snippets": ["auth.Group"]}}, "auth.Group cannot be"),
    ("unknown-model", {"scope": {"snippets": ["demo.Nothing"]}}, "Unknown model 'demo.Nothing'"),
    ("not-a-setting", {"scope": {"settings": ["demo.Category"]}}, "not a settings model"),
    ("missing-page", {"scope": {"pages": [{"id": 987654}]}}, "Page 987654 does not exist"),
    ("page-id-not-a-number", {"scope": {"pages": [{"id": "abc"}]}}, "Page 'abc'"),
    ("page-in-another-locale", {"scope": french_home}, "not in the source locale"),
    ("missing-object", {"scope": {"objects": [["demo.Category", "987654"]]}}, "does not exist"),
    ("object-pk-not-a-number", {"scope": {"objects": [["demo.Category", "x"]]}}, "Category x"),
    ("object-in-another-locale", {"scope": french_category}, "not in the source locale"),
    ("bad-mode", {"mode": "everything"}, "Unknown mode 'everything'"),
    ("bad-publish-policy", {"publish_policy": "now"}, "Unknown publish policy 'now'"),
    ("bad-content-source", {"content_source": "stale"}, "Unknown content source 'stale'"),
    ("canary-0", {"canary_size": 0}, "at least one unit"),
    ("canary-negative", {"canary_size": -5}, "at least one unit"),
]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [case[1:] for case in BAD_REQUESTS],
    ids=[case[0] for case in BAD_REQUESTS],
)
def test_a_bad_request_is_refused_with_a_clear_message_and_creates_nothing(
    three_pages, start, task_queue, changes, expected
):
    request = {"scope": subtree(three_pages.home), "source_locale": "en", "target_locales": ["fr"]}
    request.update({k: v(three_pages) if callable(v) else v for k, v in changes.items()})

    with pytest.raises(BulkTranslateError) as excinfo:
        start(**request)

    assert expected in str(excinfo.value)
    assert not Run.objects.exists()
    assert not Unit.objects.exists()
    assert task_queue.plugin_names() == []


def test_a_locale_object_as_source_and_target_is_refused(three_pages, start):
    with pytest.raises(BulkTranslateError, match="cannot also be a target"):
        start(
            scope=subtree(three_pages.home),
            source_locale="en",
            target_locales=[three_pages.locales["en"]],
        )

    assert not Run.objects.exists()


def test_an_unknown_slug_policy_setting_refuses_the_run(three_pages, start, settings, task_queue):
    settings.WAGTAIL_BULK_TRANSLATE = {"SLUG_POLICY": "transliterate"}

    with pytest.raises(BulkTranslateError, match="slug policy 'transliterate'"):
        start(scope=subtree(three_pages.home), source_locale="en", target_locales=["fr"])

    assert not Run.objects.exists()
    assert task_queue.plugin_names() == []


def test_a_run_with_nothing_to_translate_is_refused_naming_why(three_pages, start, task_queue):
    # demo.SocialLinks is a per-site setting: no site serves fr, so no unit could be made.
    with pytest.raises(BulkTranslateError) as excinfo:
        start(scope={"settings": ["demo.SocialLinks"]}, source_locale="en", target_locales=["fr"])

    assert "Nothing to translate into fr" in str(excinfo.value)
    assert "demo.SocialLinks cannot be translated: a per-site setting" in str(excinfo.value)
    assert not Run.objects.exists()
    assert task_queue.plugin_names() == []


def test_a_per_site_setting_of_a_site_serving_another_locale_is_refused(three_pages, start):
    SocialLinks.objects.create(site=Site.objects.get(is_default_site=True))
    german = three_pages.home.copy_for_translation(three_pages.locales["de"])
    Site.objects.create(hostname="de.localhost", port=80, root_page=german)

    with pytest.raises(BulkTranslateError, match="no site serves fr"):
        start(scope={"settings": ["demo.SocialLinks"]}, source_locale="en", target_locales=["fr"])

    assert not Run.objects.exists()


# --- start_run: the run it creates -----------------------------------------------------------


def test_start_run_creates_the_run_with_its_settings(three_pages, start, settings, task_queue):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "TRANSLATOR": translator_setting(formality="less", api_key="s3cret", auth_token="t"),
        "SLUG_POLICY": "keep",
    }
    editor = get_user_model().objects.create(username="editor")

    run = start(
        scope=subtree(three_pages.home),
        source_locale=three_pages.locales["en"],
        target_locales=["FR", three_pages.locales["de"], "fr"],
        mode="overwrite",
        publish_policy="mirror",
        content_source="draft",
        canary_size=3,
        user=editor,
    )

    run = Run.objects.get(pk=run.pk)
    assert run.status == RunStatus.PENDING
    assert run.source_locale == three_pages.locales["en"]
    assert sorted(run.target_locales.values_list("language_code", flat=True)) == ["de", "fr"]
    assert run.scope == {
        "pages": [{"id": three_pages.home.pk, "descendants": True}],
        "snippets": [],
        "settings": [],
        "objects": [],
        "exclude_models": [],
    }
    assert (run.mode, run.publish_policy, run.content_source) == ("overwrite", "mirror", "draft")
    assert run.slug_policy == "keep"
    assert run.canary_size == 3
    assert run.is_canary
    assert run.created_by == editor
    assert run.translator_class == RECORDING_TRANSLATOR
    assert run.translator_options == {"formality": "less"}  # secrets stay in settings
    assert not run.units.exists()  # the coordinator creates them
    assert task_queue.names().count("coordinate_run") == 1


def test_defaults_are_changed_mode_drafts_live_content_no_canary(three_pages, start):
    run = start(scope=subtree(three_pages.home), source_locale="en", target_locales=["es"])

    assert (run.mode, run.publish_policy, run.content_source) == ("changed", "draft", "live")
    assert run.canary_size is None
    assert not run.is_canary
    assert run.slug_policy == "derive"


def test_the_coordinator_is_queued_only_once_the_transaction_commits(three_pages, task_queue):
    run = start_run(scope=subtree(three_pages.home), source_locale="en", target_locales=["fr"])

    assert Run.objects.filter(pk=run.pk).exists()
    assert task_queue.plugin_names() == []  # the test's transaction never commits


def test_a_one_unit_canary_translates_one_unit_and_the_parents_it_needs(
    three_pages, start, task_queue
):
    run = start(
        scope=subtree(three_pages.home), source_locale="en", target_locales=["fr"], canary_size=1
    )
    task_queue.drain()

    translated = run.units.exclude(error_code=ErrorCode.CANARY_NOT_SAMPLED)
    pages = list(Page.objects.filter(pk__in=[u.object_id for u in translated]))
    deepest = max(pages, key=lambda page: page.depth)
    assert {p.pk for p in pages} == {
        p.pk for p in deepest.get_ancestors(inclusive=True) if p.depth > 1
    }
    assert {u.status for u in translated} == {UnitStatus.SUCCEEDED}
    assert run.units.count() == 3


# --- run_summary -----------------------------------------------------------------------------


def test_summary_of_a_new_run(three_pages, start):
    run = start(
        scope=subtree(three_pages.home),
        source_locale="en",
        target_locales=["fr", "de"],
        mode="refresh",
        publish_policy="publish",
    )

    summary = run_summary(run)

    assert set(summary) == SUMMARY_KEYS
    assert json.loads(json.dumps(summary)) == summary
    assert summary["id"] == run.pk
    assert summary["status"] == "pending"
    assert summary["mode"] == "refresh"
    assert summary["publish_policy"] == "publish"
    assert summary["canary"] is False
    assert summary["canary_size"] is None
    assert summary["source_locale"] == "en"
    assert summary["target_locales"] == ["de", "fr"]
    assert summary["enumeration_done"] is False
    assert summary["units_total"] == 0
    assert summary["units"] == dict.fromkeys(UnitStatus.values, 0)
    assert summary["units_by_locale"] == {}
    assert summary["errors"] == {}
    assert summary["strings_translated"] == summary["billed_characters"] == 0
    assert summary["started_at"] is summary["finished_at"] is summary["duration_seconds"] is None
    assert summary["created_at"] == run.created_at.isoformat()
    assert summary["error_code"] == summary["error_message"] == ""
    assert summary["translators"] == [
        {
            "profile": "default",
            "label": "default",
            "translator": "PseudoTranslator",
            "locales": ["de", "fr"],
            "texts_sent": 0,
            "characters_sent": 0,
            "billed_characters": 0,
            "spend": None,
        }
    ]


def test_summary_of_a_finished_partial_run(three_pages, start, task_queue, recording_translator):
    recording_translator.overrides["A quiet story"] = lambda text: LONG_TITLE
    run = start(scope=subtree(three_pages.home), source_locale="en", target_locales=["fr", "de"])
    task_queue.drain()

    summary = run_summary(run)

    assert json.loads(json.dumps(summary)) == summary
    assert summary["status"] == "partial"
    assert summary["enumeration_done"] is True
    assert summary["units_total"] == 6
    assert summary["units"] == {**dict.fromkeys(UnitStatus.values, 0), "succeeded": 4, "failed": 2}
    assert summary["units_by_locale"] == {
        "de": {"succeeded": 2, "failed": 1},
        "fr": {"succeeded": 2, "failed": 1},
    }
    assert summary["errors"] == {"validation_error": 2}
    units = Unit.objects.filter(run=run)
    assert summary["strings_translated"] == sum(u.strings_translated for u in units) > 0
    assert summary["billed_characters"] == sum(u.billed_characters for u in units)
    assert summary["started_at"] is not None
    assert summary["finished_at"] is not None
    run.refresh_from_db()
    expected = round((run.finished_at - run.started_at).total_seconds(), 1)
    assert summary["duration_seconds"] == expected


def test_summary_reads_the_run_fresh_from_the_database(three_pages, start):
    run = start(scope=subtree(three_pages.home), source_locale="en", target_locales=["fr"])
    Run.objects.filter(pk=run.pk).update(status=RunStatus.CANCELLED)

    assert run_summary(run)["status"] == "cancelled"


def test_summary_of_a_canary(three_pages, start, task_queue):
    run = start(
        scope=subtree(three_pages.home), source_locale="en", target_locales=["fr"], canary_size=1
    )
    task_queue.drain()

    summary = run_summary(run)

    assert summary["canary"] is True
    assert summary["canary_size"] == 1
    # One sampled page, plus the parents it needs in fr; the rest is not sampled.
    succeeded, skipped = summary["units"]["succeeded"], summary["units"]["skipped"]
    assert succeeded >= 1
    assert succeeded + skipped == 3
    assert summary["errors"] == ({"canary_not_sampled": skipped} if skipped else {})


def test_summary_queries_do_not_grow_with_the_run(three_pages, start, task_queue, count_queries):
    small = start(
        scope={"pages": [{"id": three_pages.home.pk}]}, source_locale="en", target_locales=["fr"]
    )
    large = start(
        scope=subtree(three_pages.home), source_locale="en", target_locales=["fr", "de", "es"]
    )
    task_queue.drain()

    with count_queries() as small_queries:
        run_summary(small)
    with count_queries() as large_queries:
        run_summary(large)

    assert Unit.objects.filter(run=large).count() == 9
    assert len(large_queries) == len(small_queries) <= 10
