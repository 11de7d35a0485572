"""The DeepL translator against a local fake DeepL server, through the official client.

Unit tests call the translator directly (locales are stand-ins: it only reads their codes);
the engine tests run a small site through runs configured with the DeepL translator.
"""

from __future__ import annotations

import time
import types

import deepl
import pytest
import requests
from wagtail.models import Locale, Page
from wagtail_localize.strings import StringValue

from tests import factories as f
from tests.fake_deepl import FakeDeepL, billable_characters, fake_deepl  # noqa: F401
from tests.translators.conftest import (
    machine_translate_button,
    pause_then_resume,
    run_until_settled,
)
from wagtail_bulk_translate.api import resume_run
from wagtail_bulk_translate.errors import (
    AnswerLostError,
    ErrorCode,
    QuotaExceededError,
    TransientTranslatorError,
    TranslatorConfigError,
    TranslatorError,
)
from wagtail_bulk_translate.models import Run, RunStatus, UnitReview, UnitStatus
from wagtail_bulk_translate.translators.deepl import DeepLTranslator
from wagtail_bulk_translate.translators.deepl import locales as deepl_locales
from wagtail_bulk_translate.translators.deepl.http import BoundedHttpClient, install_http_client
from wagtail_bulk_translate.translators.deepl.locales import UnsupportedLocale
from wagtail_bulk_translate.translators.deepl.packing import encoded_size, pack

DEEPL_CLASS = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"
EN, FR, DE = (types.SimpleNamespace(language_code=c) for c in ("en", "fr", "de"))


def loc(code: str):
    return types.SimpleNamespace(language_code=code)


def translate_strings(translator, texts, source=EN, target=DE) -> dict[str, str]:
    result = translator.translate(source, target, [StringValue(t) for t in texts])
    return {k.data: v.data for k, v in result.items()}


# --- locale mapping ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "target", "source"),
    [
        ("en", "EN-US", "EN"),
        ("en-gb", "EN-GB", "EN"),
        ("en-au", "EN-GB", "EN"),
        ("en_US", "EN-US", "EN"),
        ("en-ca", "EN-US", "EN"),
        ("pt", "PT-PT", "PT"),
        ("pt-br", "PT-BR", "PT"),
        ("pt-pt", "PT-PT", "PT"),
        ("zh", "ZH-HANS", "ZH"),
        ("zh-hans", "ZH-HANS", "ZH"),
        ("zh-cn", "ZH-HANS", "ZH"),
        ("zh-hant", "ZH-HANT", "ZH"),
        ("zh-tw", "ZH-HANT", "ZH"),
        ("nb", "NB", "NB"),
        ("no", "NB", "NB"),
        ("de", "DE", "DE"),
        ("de-at", "DE", "DE"),
        ("DE-CH", "DE", "DE"),
        ("fr-ca", "FR", "FR"),
        ("es", "ES", "ES"),
        ("es-es", "ES", "ES"),
        ("es-419", "ES-419", "ES"),
        ("es-mx", "ES-419", "ES"),
        ("ja", "JA", "JA"),
        ("he", "HE", "HE"),
        ("uk", "UK", "UK"),
        ("nn", None, None),
        ("cy", None, None),
        ("sr-latn", None, None),
        ("xx", None, None),
    ],
)
def test_locale_mapping_table(code, target, source):
    assert deepl_locales.deepl_target(code) == target
    assert deepl_locales.deepl_source(code) == source


def test_locale_mapping_overrides():
    british = {"en": "EN-GB"}
    assert deepl_locales.deepl_target("en", default_variants=british) == "EN-GB"
    assert deepl_locales.deepl_target("en-us", default_variants=british) == "EN-US"
    brazil = {"pt": "pt-br"}
    assert deepl_locales.deepl_target("pt", default_variants=brazil) == "PT-BR"
    mapping = {"en-ca": "EN-GB", "de-ch": None, "sr": "HR"}
    assert deepl_locales.deepl_target("en-ca", mapping) == "EN-GB"
    assert deepl_locales.deepl_target("de-ch", mapping) is None
    assert deepl_locales.deepl_target("de-at", mapping) == "DE"
    assert deepl_locales.deepl_target("sr", mapping) == "HR"


def test_unsupported_targets_for_a_preflight():
    targets = ["fr", "cy", "en-gb", "pt-br", "nn"]
    assert deepl_locales.unsupported_targets("en", targets) == ["cy", "en-gb", "nn"]
    assert deepl_locales.unsupported_targets("cy", ["fr", "de"]) == ["fr", "de"]
    assert deepl_locales.unsupported_targets("pt-br", ["pt-pt"]) == ["pt-pt"]
    translator = DeepLTranslator({"LOCALE_MAP": {"cy": "EN-GB"}})
    assert translator.unsupported_target_locales(FR, [loc("cy"), loc("nn")]) == ["nn"]


def test_can_translate_uses_the_mapping_without_a_key_or_network():
    translator = DeepLTranslator({})
    assert translator.can_translate(EN, FR)
    assert translator.can_translate(loc("pt-br"), loc("zh-hant"))
    assert not translator.can_translate(EN, loc("en-gb"))
    assert not translator.can_translate(EN, loc("cy"))
    assert not translator.can_translate(loc("cy"), FR)


def test_unsupported_locale_fails_with_its_code(make, fake_deepl):  # noqa: F811
    with pytest.raises(UnsupportedLocale) as info:
        translate_strings(make(), ["Hello"], target=loc("cy"))
    assert info.value.code == ErrorCode.UNSUPPORTED_LOCALE
    assert "LOCALE_MAP" in info.value.message
    assert fake_deepl.requests == []


# --- packing and limits --------------------------------------------------------------------------


def test_packs_at_most_50_texts_per_request(make, fake_deepl):  # noqa: F811
    texts = [f"Sentence number {i}." for i in range(120)]
    result = translate_strings(make(), texts)

    assert result == {t: f"[DE] {t.upper()}" for t in texts}
    assert [len(r.texts) for r in fake_deepl.translate_requests()] == [50, 50, 20]
    assert fake_deepl.texts_sent() == texts


def test_packs_within_the_byte_budget_measured_on_the_encoded_body(make, fake_deepl):  # noqa: F811
    # Each text is ~2,000 CJK characters plus quoted markup: ~6 KB as UTF-8 but ~12 KB in the
    # client's JSON body (\uXXXX escapes, escaped quotes); the budget counts the latter.
    cjk = "漢字かな交じり文。" * 220
    texts = [f'<a id="a1">{i}</a> {cjk} <b>{i}</b>' for i in range(30)]
    translator = make(MAX_REQUEST_BYTES=60_000)

    result = translate_strings(translator, texts)

    assert len(result) == 30
    requests_made = fake_deepl.translate_requests()
    assert all(r.body_bytes <= 60_000 for r in requests_made)
    assert [len(r.texts) for r in requests_made] == [5] * 6  # ~11.9 KB encoded each
    # Measured as UTF-8 (~6 KB each), ten would have seemed to fit: a 119 KB request.
    assert len(texts[0].encode()) * 10 < 60_000


def test_default_byte_budget_stays_under_deepls_limit(make, fake_deepl):  # noqa: F811
    texts = [f"{i} " + "é" * 4000 for i in range(50)]  # 50 texts of ~24 KB encoded each
    translate_strings(make(), texts)
    bodies = [r.body_bytes for r in fake_deepl.translate_requests()]
    assert max(bodies) <= 100_000
    assert len(bodies) == 13


def test_one_oversized_text_fails_alone(make, fake_deepl):  # noqa: F811
    huge = "<b>Huge</b> " + "word " * 30_000
    translator = make()

    result = translator.translate_texts(EN, DE, ["Before.", huge, "After."])

    assert result.texts == {"Before.": "[DE] BEFORE.", "After.": "[DE] AFTER."}
    refusal = result.refused[huge]
    assert refusal.code == ErrorCode.TOO_LARGE
    assert "too large" in refusal.message and "100000" in refusal.message
    assert huge not in fake_deepl.texts_sent()
    assert set(result.billed_characters) == {"Before.", "After."}


def test_pack_keeps_order_and_respects_both_limits():
    texts = [f"t{i}" * (i + 1) for i in range(40)]
    batches, too_large = pack(texts, max_texts=7, max_bytes=200, overhead=50)
    assert [t for batch in batches for t in batch] == [t for t in texts if t not in too_large]
    for batch in batches:
        assert len(batch) <= 7
        assert 50 + sum(encoded_size(t) + 2 for t in batch) <= 200
    assert too_large == [t for t in texts if 50 + encoded_size(t) + 2 > 200]


def test_identical_strings_are_sent_once_and_billed_once(make, fake_deepl):  # noqa: F811
    translator = make()
    strings = ["Hello", "Hello", "  Hello", "World", "   "]

    result = translator.translate_texts(EN, DE, strings)

    assert fake_deepl.texts_sent() == ["Hello", "World"]
    assert result.texts == {
        "Hello": "[DE] HELLO",
        "  Hello": "  [DE] HELLO",
        "World": "[DE] WORLD",
        "   ": "   ",
    }
    assert result.billed_characters == {"Hello": 5, "  Hello": 0, "World": 5}
    assert sum(result.billed_characters.values()) == fake_deepl.billed


# --- options passed through ----------------------------------------------------------------------


def test_formality_glossary_context_and_model_are_sent(make, fake_deepl):  # noqa: F811
    glossary = fake_deepl.create_glossary("brand", "en", "de", {"Acme": "Acme"})
    translator = make(
        FORMALITY={"de": "prefer_less", "*": "prefer_more"},
        GLOSSARIES={"en:de": glossary},
        CONTEXT="Website of ACME, a garden tools maker.",
        MODEL_TYPE="quality_optimized",
    )

    translate_strings(translator, ["Hello"], target=DE)
    translate_strings(translator, ["Hello"], target=loc("fr-ca"))

    to_de, to_fr = fake_deepl.translate_requests()
    assert (to_de.source_lang, to_de.target_lang) == ("EN", "DE")
    assert to_de.formality == "prefer_less"
    assert to_de.glossary_id == glossary
    assert to_de.context == "Website of ACME, a garden tools maker."
    assert to_de.model_type == "quality_optimized"
    assert to_de.tag_handling == "xml"
    assert to_de.ignore_tags == ["code"]
    assert to_de.show_billed_characters is True
    assert (to_fr.target_lang, to_fr.formality, to_fr.glossary_id) == ("FR", "prefer_more", None)


def test_bad_numbers_in_options_are_configuration_errors(make, fake_deepl):  # noqa: F811
    with pytest.raises(TranslatorConfigError, match="MAX_REQUEST_BYTES"):
        translate_strings(make(MAX_REQUEST_BYTES="lots"), ["Hello"])
    with pytest.raises(TranslatorConfigError, match="TIMEOUT"):
        translate_strings(make(TIMEOUT="soon"), ["Hello"])


def test_bad_formality_is_a_configuration_error(make, fake_deepl):  # noqa: F811
    with pytest.raises(TranslatorConfigError, match="FORMALITY"):
        translate_strings(make(FORMALITY={"de": "very"}), ["Hello"])
    assert fake_deepl.requests == []


def test_english_target_variant_is_configurable(make, fake_deepl):  # noqa: F811
    translate_strings(make(), ["Hallo"], source=DE, target=EN)
    translate_strings(make(DEFAULT_VARIANTS={"en": "EN-GB"}), ["Hallo"], source=DE, target=EN)
    translate_strings(make(LOCALE_MAP={"en": "en-gb"}), ["Hallo"], source=DE, target=loc("en"))
    assert [r.target_lang for r in fake_deepl.translate_requests()] == ["EN-US", "EN-GB", "EN-GB"]


# --- markup -------------------------------------------------------------------------------------


def test_markup_survives(make, fake_deepl):  # noqa: F811
    text = 'Read <b>this</b> &amp; <a id="a1">that <i>link</i></a>,<br/> and <code>x = 1</code>.'
    result = translate_strings(make(), [text])
    assert result[text] == (
        '[DE] READ <b>THIS</b> &amp; <a id="a1">THAT <i>LINK</i></a>,<br/> AND <code>x = 1</code>.'
    )


def test_broken_markup_is_retried_once(make, fake_deepl):  # noqa: F811
    text = 'A <a id="a1">link</a> here.'
    fake_deepl.break_markup(text, times=1)
    translator = make()

    result = translator.translate_texts(EN, DE, [text, "Plain."])

    assert result.texts[text] == '[DE] A <a id="a1">LINK</a> HERE.'
    assert fake_deepl.texts_sent() == [text, "Plain.", text]
    assert result.refused == {}
    assert result.billed_characters[text] == 2 * billable_characters(text)


def test_markup_broken_twice_fails_that_text_only(make, fake_deepl):  # noqa: F811
    text = 'A <a id="a1">link</a> and <b>bold</b>.'
    fake_deepl.break_markup(text)
    translator = make()

    result = translator.translate_texts(EN, DE, [text, "Plain."])

    assert result.texts == {"Plain.": "[DE] PLAIN."}
    refusal = result.refused[text]
    assert refusal.code == ErrorCode.INVALID_MARKUP
    assert '<a id="a1">' in refusal.message
    assert fake_deepl.texts_sent().count(text) == 2


def test_markup_without_tag_handling_is_caught(make, fake_deepl):  # noqa: F811
    text = 'A <a id="a1">link</a>.'
    result = make(TAG_HANDLING=None).translate_texts(EN, DE, [text])
    assert result.texts == {}
    assert result.refused[text].code == ErrorCode.INVALID_MARKUP


# --- failures -----------------------------------------------------------------------------------


def test_rate_limit_is_retried_by_the_client(make, fake_deepl):  # noqa: F811
    fake_deepl.fail_next(429, times=2)
    assert translate_strings(make(RETRIES=3), ["Hi"]) == {"Hi": "[DE] HI"}
    assert [r.status for r in fake_deepl.translate_requests(None)] == [429, 429, 200]


def test_rate_limit_beyond_retries_is_transient_rate_limited(make, fake_deepl):  # noqa: F811
    fake_deepl.fail_next(429, times=5)
    with pytest.raises(TransientTranslatorError) as info:
        translate_strings(make(RETRIES=1), ["Hi"])
    assert info.value.code == ErrorCode.RATE_LIMITED
    assert info.value.transient
    assert len(fake_deepl.translate_requests(None)) == 2


def test_quota_exceeded(make, fake_deepl):  # noqa: F811
    fake_deepl.fail_next(456)
    with pytest.raises(QuotaExceededError) as info:
        translate_strings(make(), ["Hi"])
    assert info.value.code == ErrorCode.QUOTA_EXCEEDED
    assert len(fake_deepl.translate_requests(None)) == 1  # never retried


def test_a_failure_mid_call_carries_what_was_already_paid_for(make, fake_deepl):  # noqa: F811
    translator = make(MAX_TEXTS_PER_REQUEST=2)
    fake_deepl.character_limit = 6  # "One" and "Two" fit, then the quota is gone
    with pytest.raises(QuotaExceededError) as info:
        translate_strings(translator, ["One", "Two", "Three", "Four"])
    assert info.value.partial.texts == {"One": "[DE] ONE", "Two": "[DE] TWO"}
    assert info.value.partial.billed_characters == {"One": 3, "Two": 3}


def test_bad_key_is_a_configuration_error(make, fake_deepl):  # noqa: F811
    fake_deepl.rejected_keys.add("secret-key:fx")
    with pytest.raises(TranslatorConfigError) as info:
        translate_strings(make(AUTH_KEY="secret-key:fx"), ["Hi"])
    assert info.value.code == ErrorCode.AUTH_CONFIG
    assert "secret-key" not in info.value.message
    assert "secret-key" not in repr(make(AUTH_KEY="secret-key:fx"))


def test_key_comes_from_the_environment(make, fake_deepl, monkeypatch):  # noqa: F811
    monkeypatch.setenv("DEEPL_AUTH_KEY", "from-env:fx")
    translate_strings(make(AUTH_KEY=None), ["Hi"])
    assert fake_deepl.requests[-1].auth_key == "from-env:fx"

    monkeypatch.delenv("DEEPL_AUTH_KEY")
    with pytest.raises(TranslatorConfigError, match="DEEPL_AUTH_KEY"):
        translate_strings(make(AUTH_KEY=""), ["Hi"])


def test_server_errors_are_retried_then_transient(make, fake_deepl):  # noqa: F811
    fake_deepl.fail_next(500)
    assert translate_strings(make(RETRIES=2), ["Hi"]) == {"Hi": "[DE] HI"}

    fake_deepl.fail_next(503, times=3)
    with pytest.raises(TransientTranslatorError) as info:
        translate_strings(make(RETRIES=2), ["Hi"])
    assert info.value.code == ErrorCode.TRANSLATOR_ERROR
    assert "503" in info.value.message


def test_dropped_connections_are_retried_then_transient(make, fake_deepl):  # noqa: F811
    fake_deepl.drop_next()
    assert translate_strings(make(RETRIES=2), ["Hi"]) == {"Hi": "[DE] HI"}

    fake_deepl.drop_next(times=3)
    with pytest.raises(AnswerLostError, match="did not answer"):
        translate_strings(make(RETRIES=2), ["Hi"])


def test_slow_answers_time_out_and_are_retried(make, fake_deepl):  # noqa: F811
    fake_deepl.slow_next(1.0)
    started = time.monotonic()
    assert translate_strings(make(TIMEOUT=0.2, RETRIES=2), ["Hi"]) == {"Hi": "[DE] HI"}
    assert time.monotonic() - started < 1.0


def test_bad_request_is_a_translator_error_not_a_configuration_error(make, fake_deepl):  # noqa: F811
    # DeepL refuses formality "more" for a language without formality: only that locale fails.
    with pytest.raises(TranslatorError) as info:
        translate_strings(make(FORMALITY={"en": "more"}), ["Hallo"], source=DE, target=loc("en-gb"))
    assert type(info.value) is TranslatorError
    assert not info.value.transient
    assert "formality" in info.value.message


def test_unknown_glossary_is_a_configuration_error(make, fake_deepl):  # noqa: F811
    with pytest.raises(TranslatorConfigError, match="GLOSSARIES"):
        translate_strings(make(GLOSSARIES={"en:de": "missing"}), ["Hi"])


def test_retries_never_outlast_half_the_lease(make, fake_deepl, settings):  # noqa: F811
    settings.WAGTAIL_BULK_TRANSLATE = {**settings.WAGTAIL_BULK_TRANSLATE, "LEASE_SECONDS": 1}
    fake_deepl.fail_next(503, times=1000)
    started = time.monotonic()
    with pytest.raises(TransientTranslatorError):
        translate_strings(make(RETRIES=50, RETRY_BACKOFF_SECONDS=0.2), ["Hi"])
    assert time.monotonic() - started < 1.0  # the budget is 0.5 s


def test_longest_call_counts_every_timeout_and_back_off_of_two_requests():
    options = {"TIMEOUT": 10, "RETRIES": 2, "RETRY_BACKOFF_SECONDS": 1}
    # Per request: 3 waits of 10 s, and sleeps of 1 s then 1.6 s, each up to 23 % longer.
    expected = 2 * (3 * 10 + (1 + 1.6) * 1.23)

    assert DeepLTranslator.longest_call_seconds(options) == pytest.approx(expected)
    assert DeepLTranslator.longest_call_seconds({"TIMEOUT": "soon"}) is None


# --- billing and usage --------------------------------------------------------------------------


def test_billed_characters_per_text(make, fake_deepl):  # noqa: F811
    translator = make()
    texts = ["Hello <b>world</b>", "Tom &amp; Jerry", "漢字"]
    result = translator.translate_texts(EN, DE, texts)
    assert result.billed_characters == {texts[0]: 11, texts[1]: 11, texts[2]: 2}
    assert sum(result.billed_characters.values()) == fake_deepl.billed == 24


def test_usage(make, fake_deepl):  # noqa: F811
    fake_deepl.character_limit = 500_000
    translator = make()
    translate_strings(translator, ["Hello"])
    usage = translator.usage()
    assert (usage.characters_used, usage.character_limit, usage.remaining) == (5, 500_000, 499_995)


# --- the fake itself ----------------------------------------------------------------------------


def test_fake_enforces_deepls_limits_and_reads_form_bodies(fake_deepl):  # noqa: F811
    client = deepl.Translator("k:fx", server_url=fake_deepl.url)
    with pytest.raises(deepl.DeepLException, match="Bad request"):
        client.translate_text([f"t{i}" for i in range(51)], target_lang="DE")
    with pytest.raises(deepl.DeepLException, match="413"):
        client.translate_text(["x" * 140_000], target_lang="DE")

    # wagtail-localize's own translator posts a form body with repeated text= keys.
    response = requests.post(
        f"{fake_deepl.url}/v2/translate",
        data={"text": ["Hello <b>you</b>", "Bye"], "target_lang": "FR", "tag_handling": "xml"},
        headers={"Authorization": "DeepL-Auth-Key k:fx"},
        timeout=5,
    )
    texts = [t["text"] for t in response.json()["translations"]]
    assert texts == ["[FR] HELLO <b>YOU</b>", "[FR] BYE"]
    assert "billed_characters" not in response.json()["translations"][0]


# --- as wagtail-localize's machine translator -----------------------------------------------------


@pytest.mark.django_db
def test_editor_machine_translate_button(settings, fake_deepl, django_user_model):  # noqa: F811
    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {
        "CLASS": DEEPL_CLASS,
        "OPTIONS": {"AUTH_KEY": "test:fx", "SERVER_URL": fake_deepl.url},
    }
    editor = django_user_model.objects.create_superuser("editor", "editor@example.com", "pw")
    stored = machine_translate_button(editor, DeepLTranslator)
    assert stored == {"[FR] GARDEN TOOLS", "[FR] SPADES &amp; RAKES."}


# --- through the engine -------------------------------------------------------------------------


@pytest.fixture
def repeated_texts(task_queue):
    """home > news > three articles; two share a summary and a paragraph."""
    shared = [f.block("paragraph", f.rich('Visit <a href="/shop/">our shop</a>.'))]
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    f.article(news, "First story", summary="Shared summary.")
    f.article(news, "Second story", summary="Shared summary.", body=shared)
    f.article(news, "Third story", body=shared)
    task_queue.clear()
    return {"pages": [{"id": home.pk, "descendants": True}]}


# What needs a translation, each string once: slugs are derived from translated titles, and
# the shared summary and paragraph appear on two pages each.
DISTINCT_SOURCE_STRINGS = {
    "Home",
    "News",
    "First story",
    "Shared summary.",
    "About First story",
    "Read <b>First story</b> today.",
    "Second story",
    'Visit <a id="a1">our shop</a>.',
    "Third story",
    "Summary of Third story.",
}


def run_pages(start, task_queue, scope, locales=("fr", "de"), **options) -> Run:
    run = start(scope=scope, source_locale="en", target_locales=list(locales), **options)
    task_queue.drain()
    run.refresh_from_db()
    return run


@pytest.mark.django_db
def test_a_run_bills_exactly_the_floor(start, task_queue, deepl_runs, repeated_texts, settings):
    settings.WAGTAIL_BULK_TRANSLATE = {**settings.WAGTAIL_BULK_TRANSLATE, "UNITS_PER_CLAIM": 2}

    run = run_pages(start, task_queue, repeated_texts, publish_policy="publish")

    assert run.status == RunStatus.SUCCEEDED
    assert set(run.units.values_list("status", flat=True)) == {UnitStatus.SUCCEEDED}
    for lang in ("FR", "DE"):
        sent = deepl_runs.texts_sent(lang)
        assert sorted(sent) == sorted(DISTINCT_SOURCE_STRINGS)  # each string once per locale
    floor = 2 * sum(billable_characters(t) for t in DISTINCT_SOURCE_STRINGS)
    assert deepl_runs.billed == floor
    assert run.billed_characters == floor
    assert sum(run.units.values_list("billed_characters", flat=True)) == floor
    fr_page = Page.objects.get(locale__language_code="fr", title="[FR] THIRD STORY")
    assert '<a href="/shop/">OUR SHOP</a>' in str(fr_page.specific.body[0].value)


@pytest.mark.django_db
def test_quota_pauses_the_run_and_resume_finishes_it(
    start, task_queue, deepl_runs, repeated_texts, django_capture_on_commit_callbacks
):
    deepl_runs.quota_exceeded = True

    def lift_quota():
        assert deepl_runs.billed == 0
        deepl_runs.quota_exceeded = False

    run = pause_then_resume(
        start, task_queue, repeated_texts, django_capture_on_commit_callbacks, lift_quota
    )

    assert run.billed_characters == deepl_runs.billed
    assert deepl_runs.billed == 2 * sum(billable_characters(t) for t in DISTINCT_SOURCE_STRINGS)


@pytest.mark.django_db
def test_quota_running_out_mid_call_bills_nothing_twice(
    start, task_queue, deepl_runs, repeated_texts, settings, django_capture_on_commit_callbacks
):
    conf = settings.WAGTAIL_BULK_TRANSLATE
    options = {**conf["TRANSLATOR"]["OPTIONS"], "MAX_TEXTS_PER_REQUEST": 3}
    settings.WAGTAIL_BULK_TRANSLATE = {
        **conf,
        "UNITS_PER_CLAIM": 10,  # one claim: one call per locale, four requests each
        "TRANSLATOR": {"CLASS": DEEPL_CLASS, "OPTIONS": options},
    }
    deepl_runs.fail_next(456, after=2)
    run = start(scope=repeated_texts, source_locale="en", target_locales=["fr", "de"])
    run_until_settled(task_queue)
    assert Run.objects.get(pk=run.pk).status == RunStatus.PAUSED

    task_queue.clear()
    with django_capture_on_commit_callbacks(execute=True):
        resume_run(run.pk)
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    floor = 2 * sum(billable_characters(t) for t in DISTINCT_SOURCE_STRINGS)
    assert deepl_runs.billed == floor
    # What was billed before the pause is recorded on the units too.
    assert run.billed_characters == floor


@pytest.mark.django_db
def test_a_bad_key_stops_the_run_with_one_message(start, task_queue, deepl_runs, repeated_texts):
    deepl_runs.rejected_keys.add("test:fx")
    run = run_pages(start, task_queue, repeated_texts)
    assert run.status == RunStatus.FAILED
    assert run.error_code == ErrorCode.AUTH_CONFIG
    assert "403" in run.error_message
    assert len(deepl_runs.translate_requests(None)) == 1


@pytest.mark.django_db
def test_an_oversized_text_holds_only_its_page_for_review(start, task_queue, deepl_runs, settings):
    conf = settings.WAGTAIL_BULK_TRANSLATE
    options = {**conf["TRANSLATOR"]["OPTIONS"], "MAX_REQUEST_BYTES": 2_000}
    settings.WAGTAIL_BULK_TRANSLATE = {
        **conf,
        "TRANSLATOR": {"CLASS": DEEPL_CLASS, "OPTIONS": options},
    }
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    big = f.article(news, "Big", body=[f.block("paragraph", f.rich("word " * 500))])
    small = f.article(news, "Small")
    task_queue.clear()

    run = run_pages(start, task_queue, {"pages": [{"id": home.pk, "descendants": True}]}, ["fr"])

    units = {u.object_key: u for u in run.units.all()}
    held = units[big.translation_key]
    assert (held.status, held.error_code) == (UnitStatus.SUCCEEDED, ErrorCode.HELD_FOR_REVIEW)
    assert "too large" in held.error_message
    review = UnitReview.objects.get(unit=held)
    assert [flag["code"] for flag in review.flags] == [ErrorCode.TOO_LARGE]
    assert review.flags[0]["source"].startswith("word word")
    assert units[small.translation_key].error_code == ""
    assert run.units.filter(status=UnitStatus.SUCCEEDED).count() == 4


@pytest.mark.django_db
def test_the_demo_site_bills_exactly_the_floor(start, task_queue, deepl_runs):
    """The whole demo site (pages, snippets, both kinds of settings) into fr and de: DeepL
    bills each distinct string that needs a translation once per locale, nothing more."""

    from demo.content import seed_demo_content
    from wagtail_bulk_translate.api import whole_site_scope
    from wagtail_bulk_translate.runs.preflight import sample_texts
    from wagtail_bulk_translate.scope.enumeration import iter_scope

    seed_demo_content(pages=30)
    task_queue.clear()
    source = Locale.objects.get(language_code="en")
    scope = whole_site_scope(source)
    needed = sample_texts(list(iter_scope(scope, source)))

    run = run_pages(start, task_queue, scope, publish_policy="mirror")

    assert run.status == RunStatus.SUCCEEDED, run.units.exclude(status="succeeded").first()
    floor = 2 * sum(billable_characters(text) for text in needed)
    assert deepl_runs.billed == floor
    assert run.billed_characters == floor
    for target_lang in ("FR", "DE"):
        assert sorted(deepl_runs.texts_sent(target_lang)) == sorted(needed)


# --- the client's HTTP layer ---------------------------------------------------------------------


def test_each_client_gets_its_own_http_layer(make):
    client = make(RETRIES=5, TIMEOUT=7).client()
    assert isinstance(client._client, BoundedHttpClient)
    assert (client._client.retries, client._client.timeout) == (5, 7.0)
    assert make().client()._client is not client._client


def test_a_client_without_a_replaceable_http_layer_is_a_clear_configuration_error():
    client = types.SimpleNamespace(_client=None)
    http = BoundedHttpClient(retries=0, timeout=1, backoff=0)
    with pytest.raises(TranslatorConfigError, match="no replaceable HTTP layer"):
        install_http_client(client, http)


def test_deepl_without_a_key_says_so_without_being_built(monkeypatch):
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    [problem] = DeepLTranslator.configuration_problems({})
    assert "no API key" in problem.message and "DEEPL_AUTH_KEY" in problem.hint
    assert DeepLTranslator.configuration_problems({"AUTH_KEY": "k:fx"}) == []
