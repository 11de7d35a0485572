"""The LLM translator as a whole: its options, money, and runs through the engine."""

from __future__ import annotations

import pytest
from wagtail.models import Locale

from tests.translators.conftest import (
    DE,
    EN,
    LLM_CLASS,
    llm_options,
    machine_translate_button,
    pause_then_resume,
)
from tests.translators.test_deepl import DISTINCT_SOURCE_STRINGS, run_pages
from wagtail_bulk_translate.errors import ErrorCode, QuotaExceededError
from wagtail_bulk_translate.models import Run, RunStatus, UnitReview, UnitStatus
from wagtail_bulk_translate.translators import loading
from wagtail_bulk_translate.translators.llm import LLMTranslator
from wagtail_bulk_translate.translators.pseudo import pseudo_localize

# The translator reads the admin's glossary and house style.
pytestmark = pytest.mark.django_db

TEXTS = ["The garden centre opens at nine.", "Spades and rakes are on sale."]


# --- options -------------------------------------------------------------------------------------


def test_configuration_problems_name_what_is_missing(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    problems = LLMTranslator.configuration_problems({"RESPONSE_FORMAT": "xml"})
    messages = " ".join(p.message for p in problems)
    assert "no MODEL" in messages and "no API key" in messages and "RESPONSE_FORMAT" in messages
    assert LLMTranslator.configuration_problems({"MODEL": "m", "API_KEY": "k"}) == []
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert LLMTranslator.configuration_problems({"MODEL": "m"}) == []


def test_a_missing_openai_package_is_a_configuration_problem(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a)
    )
    [problem] = LLMTranslator.configuration_problems({"MODEL": "m", "API_KEY": "k"})
    assert "openai" in problem.message and "[llm]" in problem.hint


def test_the_key_comes_from_the_environment_and_is_never_pinned_on_runs(
    fake_openai, monkeypatch, settings
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    options = llm_options(fake_openai)
    del options["API_KEY"]
    assert len(LLMTranslator(options).translate_texts(EN, DE, TEXTS).texts) == 2
    assert fake_openai.requests[0].headers["authorization"] == "Bearer sk-env"

    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "TRANSLATOR": {"CLASS": LLM_CLASS, "OPTIONS": llm_options(fake_openai)},
    }
    _class_path, pinned = loading.pinned_translator()
    assert "API_KEY" not in pinned and pinned["MODEL"] == "fake-model"


def test_longest_call_is_every_try_of_a_request_and_the_waits_between():
    assert LLMTranslator.longest_call_seconds({"TIMEOUT": 30, "MAX_RETRIES": 2}) == 30 * 3 + 2 * 10
    assert LLMTranslator.longest_call_seconds({}) == 60 * 3 + 2 * 10


def test_any_pair_of_different_languages_can_be_translated():
    translator = LLMTranslator({"MODEL": "m"})
    assert translator.can_translate(EN, DE)
    assert not translator.can_translate(EN, EN)
    assert "sk-" not in repr(LLMTranslator({"MODEL": "m", "API_KEY": "sk-secret"}))


# --- money ---------------------------------------------------------------------------------------


def test_spend_is_the_usage_of_each_response_priced_per_million_tokens(llm, fake_openai):
    result = llm(MAX_TEXTS_PER_REQUEST=1).translate_texts(EN, DE, TEXTS)
    spend = result.spend
    assert spend.requests == 2
    assert spend.prompt_tokens == fake_openai.prompt_tokens
    assert spend.completion_tokens == fake_openai.completion_tokens
    expected = (spend.prompt_tokens * 0.5 + spend.completion_tokens * 2.0) / 1_000_000
    assert spend.cost == pytest.approx(expected)
    assert llm(MODEL="unpriced").translate_texts(EN, DE, TEXTS).spend.cost == 0


def test_a_failure_mid_call_carries_what_was_translated_and_paid(llm, fake_openai):
    fake_openai.fail_next("quota", after=1)
    with pytest.raises(QuotaExceededError) as caught:
        llm(MAX_TEXTS_PER_REQUEST=1).translate_texts(EN, DE, TEXTS)
    partial = caught.value.partial
    assert list(partial.texts) == [TEXTS[0]]
    assert partial.spend.requests == 1
    assert partial.spend.prompt_tokens == fake_openai.prompt_tokens


@pytest.mark.django_db
def test_the_estimate_lands_within_a_quarter_of_the_recorded_tokens_on_the_demo(llm, fake_openai):
    from demo.content import seed_demo_content
    from wagtail_bulk_translate.api import whole_site_scope
    from wagtail_bulk_translate.runs.preflight import sample_texts
    from wagtail_bulk_translate.scope.enumeration import iter_scope

    seed_demo_content(pages=30)
    source = Locale.objects.get(language_code="en")
    texts = sample_texts(list(iter_scope(whole_site_scope(source), source)))
    translator = llm()
    estimate = translator.estimate_spend(EN, DE, texts)
    assert fake_openai.requests == []  # nothing sent

    for batch in translator.request_batches(EN, DE, texts):
        translator.translate_texts(EN, DE, batch)

    assert estimate.requests == len(fake_openai.requests)
    for estimated, recorded in (
        (estimate.prompt_tokens, fake_openai.prompt_tokens),
        (estimate.completion_tokens, fake_openai.completion_tokens),
    ):
        assert abs(estimated - recorded) <= 0.25 * recorded, (estimated, recorded)
    recorded_cost = (fake_openai.prompt_tokens * 0.5 + fake_openai.completion_tokens * 2) / 1e6
    assert abs(estimate.cost - recorded_cost) <= 0.25 * recorded_cost


# --- as wagtail-localize's machine translator -----------------------------------------------------


@pytest.mark.django_db
def test_editor_machine_translate_button(settings, fake_openai, django_user_model):
    settings.WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {
        "CLASS": LLM_CLASS,
        "OPTIONS": llm_options(fake_openai),
    }
    editor = django_user_model.objects.create_superuser("editor", "editor@example.com", "pw")
    stored = machine_translate_button(editor, LLMTranslator)
    assert stored == {
        pseudo_localize("Garden tools", "fr"),
        pseudo_localize("Spades &amp; rakes.", "fr"),
    }


# --- through the engine -------------------------------------------------------------------------


@pytest.fixture
def llm_runs(settings, fake_openai, task_queue):
    """Runs started in the test translate with the LLM translator (on the fake)."""
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "RETRY_BACKOFF_SECONDS": 0,
        "TRANSLATOR": {"CLASS": LLM_CLASS, "OPTIONS": llm_options(fake_openai)},
    }
    return fake_openai


@pytest.fixture
def repeated_texts(task_queue):
    from tests.translators.test_deepl import repeated_texts as deepl_repeated_texts

    return deepl_repeated_texts.__wrapped__(task_queue)


def sent_per_locale(fake) -> dict[str, list[str]]:
    sent: dict[str, list[str]] = {}
    for request in fake.answered():
        for text in request.items.values():
            sent.setdefault(request.batch["target_language"], []).append(text)
    return sent


AS_SENT = sorted(t.replace('<a id="a1">', "<1>").replace("</a>", "</1>").replace("<b>", "<1>")
                 .replace("</b>", "</1>") for t in DISTINCT_SOURCE_STRINGS)  # fmt: skip


@pytest.mark.django_db
def test_a_run_sends_each_text_once_per_locale(start, task_queue, llm_runs, repeated_texts):
    run = run_pages(start, task_queue, repeated_texts, publish_policy="publish")

    assert run.status == RunStatus.SUCCEEDED
    assert set(run.units.values_list("status", flat=True)) == {UnitStatus.SUCCEEDED}
    assert {k: sorted(v) for k, v in sent_per_locale(llm_runs).items()} == {
        "fr": AS_SENT,
        "de": AS_SENT,
    }
    from wagtail.models import Page

    fr_page = Page.objects.get(
        locale__language_code="fr", title=pseudo_localize("Third story", "fr")
    )
    assert '<a href="/shop/">óúŕ šĥóṕ</a>' in str(fr_page.specific.body[0].value)


@pytest.mark.django_db
def test_insufficient_quota_pauses_the_run_and_resume_finishes_it(
    start, task_queue, llm_runs, repeated_texts, settings, django_capture_on_commit_callbacks
):
    conf = settings.WAGTAIL_BULK_TRANSLATE
    options = {**conf["TRANSLATOR"]["OPTIONS"], "MAX_TEXTS_PER_REQUEST": 3}
    settings.WAGTAIL_BULK_TRANSLATE = {
        **conf,
        "UNITS_PER_CLAIM": 10,
        "TRANSLATOR": {"CLASS": LLM_CLASS, "OPTIONS": options},
    }
    llm_runs.exhaust_quota_after(2)

    def lift_quota():
        llm_runs.quota_exceeded = False

    pause_then_resume(
        start, task_queue, repeated_texts, django_capture_on_commit_callbacks, lift_quota
    )
    # What was answered before the pause was not paid for again.
    assert {k: sorted(v) for k, v in sent_per_locale(llm_runs).items()} == {
        "fr": AS_SENT,
        "de": AS_SENT,
    }


@pytest.mark.django_db
def test_a_refused_text_holds_only_its_page_for_review_with_the_models_words(
    start, task_queue, llm_runs, repeated_texts
):
    llm_runs.fault_on("Third story", "refusal")
    run = run_pages(start, task_queue, repeated_texts, locales=["fr"])

    assert not run.units.filter(status=UnitStatus.FAILED).exists()
    held = run.units.filter(error_code=ErrorCode.HELD_FOR_REVIEW)
    assert len(held) == 1 and "I'm sorry" in held[0].error_message
    review = UnitReview.objects.get(unit=held[0])
    assert {flag["code"] for flag in review.flags} == {ErrorCode.MODEL_REFUSED}
    assert all("Third story" in flag["source"] for flag in review.flags), review.flags
    assert run.units.filter(status=UnitStatus.SUCCEEDED).count() == run.units.count()


@pytest.mark.django_db
def test_a_rejected_key_stops_the_run(start, task_queue, llm_runs, repeated_texts):
    llm_runs.rejected_keys.add("sk-test")
    run = run_pages(start, task_queue, repeated_texts)
    assert run.status == RunStatus.FAILED
    assert run.error_code == ErrorCode.AUTH_CONFIG
    assert len(llm_runs.requests) == 1
    assert Run.objects.count() == 1


def test_a_language_model_bills_tokens_not_characters(llm):
    result = llm().translate_texts(EN, DE, TEXTS)

    assert set(result.texts) == set(TEXTS)
    assert result.billed_characters == dict.fromkeys(TEXTS, 0)  # paid for, in tokens
    assert result.spend is not None and result.spend.prompt_tokens > 0
