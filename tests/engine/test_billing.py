"""Money: the run's billed figure is what the translator billed, and nothing is paid twice.

Runs translate with ``BillingTranslator`` (pseudo output, one character billed per character
sent) or with DeepL against the fake server, which counts what it billed. Each test compares
the run's figures with the translator's own count.
"""

from __future__ import annotations

import uuid
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import OperationalError
from wagtail.models import Locale

from tests import factories as f
from tests.factories import subtree
from tests.translator_doubles import BILLING_TRANSLATOR, BillingTranslator, break_links
from wagtail_bulk_translate.engine import claims, ledger, worker
from wagtail_bulk_translate.engine import translate as translate_step
from wagtail_bulk_translate.engine.reservations import text_hash
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.management.reporting import format_summary
from wagtail_bulk_translate.models import (
    Run,
    SentOutcome,
    SentText,
    TextReservation,
    Unit,
    UnitStatus,
)
from wagtail_bulk_translate.runs.summary import run_summary
from wagtail_bulk_translate.translators.pins import RunTranslators

pytestmark = pytest.mark.django_db

DEEPL_CLASS = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"
LINKED = 'Visit <a id="a1">our shop</a>.'  # the segment of a paragraph with one link


@pytest.fixture
def billing_translator(settings, conf):
    BillingTranslator.reset()
    conf(
        TRANSLATOR={"CLASS": BILLING_TRANSLATOR, "OPTIONS": {}},
        RETRY_BACKOFF_SECONDS=0,
        UNITS_PER_CLAIM=1,
        MAX_UNITS_PER_CLAIM=1,
    )
    yield BillingTranslator
    BillingTranslator.reset()


@pytest.fixture
def deepl(conf, fake_deepl):
    conf(
        RETRY_BACKOFF_SECONDS=0,
        UNITS_PER_CLAIM=1,
        MAX_UNITS_PER_CLAIM=1,
        TRANSLATOR={
            "CLASS": DEEPL_CLASS,
            "OPTIONS": {"AUTH_KEY": "test:fx", "SERVER_URL": fake_deepl.url},
        },
    )
    return fake_deepl


@pytest.fixture
def translate(start, task_queue):
    def _translate(scope, targets=("fr", "de"), mode="changed") -> Run:
        run = start(
            scope=scope,
            source_locale="en",
            target_locales=list(targets),
            mode=mode,
            publish_policy="publish",
        )
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _translate


def shared_site(task_queue, articles: int = 6) -> dict:
    """home > news > articles that all share a linked paragraph, a heading and a summary."""
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    body = [
        f.block("heading", "Practical information"),
        f.block("paragraph", f.rich('Visit <a href="/shop/">our shop</a>.')),
    ]
    for i in range(articles):
        f.article(news, f"Story {i}", summary="Opening hours may change.", body=body)
    task_queue.clear()
    return subtree(home)


def resent(texts: list[str]) -> dict[str, int]:
    return {text: n for text, n in Counter(texts).items() if n > 1}


# --- 9.1: billed equals what the translator billed -------------------------------------------


def test_9_1_billed_includes_units_that_failed_after_their_strings_were_paid(
    translate, deepl, task_queue
):
    """Titles DeepL makes too long for the field: every article's write fails after its texts
    were paid for; the summary bills them to the failed units."""
    scope = shared_site(task_queue)
    for i in range(6):
        deepl.translate_as(f"Story {i}", "x" * 300)

    run = translate(scope)

    summary = run_summary(run)
    assert summary["units"]["failed"] == 12  # six articles, two locales
    assert summary["billed_characters"] == deepl.billed > 0
    failed_billed = summary["billed_characters_for_failed_units"]
    assert 0 < failed_billed < deepl.billed
    assert failed_billed == sum(
        Unit.objects.filter(run=run, status=UnitStatus.FAILED).values_list(
            "billed_characters", flat=True
        )
    )
    # The admin's per-unit sum agrees with the ledger.
    assert sum(Unit.objects.filter(run=run).values_list("billed_characters", flat=True)) == (
        deepl.billed
    )
    text = format_summary(summary)
    assert f"billed: {deepl.billed} character(s) ({failed_billed} for units that failed)" in text
    assert summary["characters_sent"] > 0 and summary["translator"] == "DeepLTranslator"


def test_9_1_a_text_deepl_keeps_breaking_holds_its_pages_for_review_not_their_bill(
    translate, deepl, task_queue
):
    scope = shared_site(task_queue)
    deepl.break_markup(LINKED)  # always: every article has a text that cannot be translated

    run = translate(scope)

    summary = run_summary(run)
    assert summary["units"]["failed"] == 0
    assert summary["outcomes"]["held_for_review"] == 12  # six articles, two locales
    assert summary["billed_characters"] == deepl.billed > 0
    assert "held for review: 12" in format_summary(summary)


# --- 9.2: a text whose markup broke twice is not sent again ------------------------------------


def test_9_2_text_whose_markup_broke_twice_is_not_sent_again(
    translate, billing_translator, task_queue
):
    scope = shared_site(task_queue)
    billing_translator.overrides[LINKED] = break_links

    run = translate(scope)

    for code in ("fr", "de"):
        sent = billing_translator.texts_sent(code)
        assert sent.count(LINKED) == 2, "sent twice, then given up"
        assert resent(sent).keys() <= {LINKED}
    held = Unit.objects.filter(run=run, error_code=ErrorCode.HELD_FOR_REVIEW)
    assert held.count() == 12
    assert set(held.values_list("status", flat=True)) == {UnitStatus.SUCCEEDED}
    assert run_summary(run)["billed_characters"] == billing_translator.billed()


def test_9_2_deepl_text_broken_twice_in_one_call_is_not_sent_again(translate, deepl, task_queue):
    scope = shared_site(task_queue)
    deepl.break_markup(LINKED)

    translate(scope)

    for lang in ("FR", "DE"):
        # DeepL's own retry of the broken text, then never again.
        assert deepl.texts_sent(lang).count(LINKED) == 2


def test_9_2_identical_runs_bill_identical_amounts(translate, billing_translator, task_queue):
    scope = shared_site(task_queue)
    billing_translator.overrides[LINKED] = break_links

    first = translate(scope, mode="overwrite")
    second = translate(scope, mode="overwrite")

    billed = [run_summary(run)["billed_characters"] for run in (first, second)]
    assert billed[0] == billed[1] > 0
    assert sum(billed) == billing_translator.billed()


# --- 9.3 / 12.3: a busy database never makes us pay twice -------------------------------------


@pytest.mark.parametrize("failures", [2, ledger.STORE_ATTEMPTS + 1], ids=["retried", "given-up"])
def test_9_3_busy_database_when_storing_translations_rebills_nothing(
    translate, billing_translator, task_queue, monkeypatch, failures
):
    scope = shared_site(task_queue, articles=3)
    original = translate_step.upsert_string_translations
    calls = {"n": 0}

    def busy_then_store(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] <= failures:
            raise OperationalError("database is locked")
        return original(*args, **kwargs)

    monkeypatch.setattr(translate_step, "upsert_string_translations", busy_then_store)
    monkeypatch.setattr(ledger, "STORE_BACKOFF_SECONDS", 0)

    run = translate(scope)

    assert run.status == "succeeded"
    for code in ("fr", "de"):
        assert resent(billing_translator.texts_sent(code)) == {}
    assert run_summary(run)["billed_characters"] == billing_translator.billed()


def test_12_3_each_request_is_stored_as_it_arrives(
    translate, billing_translator, conf, task_queue, monkeypatch
):
    """Texts go out one request at a time and each answer is in the ledger before the next:
    a worker killed mid-claim pays again for the one request in flight at most."""
    conf(UNITS_PER_CLAIM=100)
    scope = shared_site(task_queue, articles=3)
    seen: list[int] = []
    original = translate_step.call_translator

    def observe(*args, **kwargs):
        seen.append(SentText.objects.count())
        return original(*args, **kwargs)

    def one_text_per_request(self, source, target, texts):
        return [[text] for text in texts]

    monkeypatch.setattr(BillingTranslator, "request_batches", one_text_per_request, raising=False)
    monkeypatch.setattr(translate_step, "call_translator", observe)

    translate(scope, targets=("fr",))

    assert len(seen) > 3
    assert seen == list(range(len(seen)))  # one more row stored before every request


# --- 12.7: refresh and overwrite pay once per text and locale -----------------------------------


@pytest.mark.parametrize("mode", ["refresh", "overwrite"])
@pytest.mark.parametrize("per_claim", [1, 4], ids=["one-unit-claims", "four-unit-claims"])
def test_12_7_refresh_bills_each_distinct_text_once_per_locale(
    translate, billing_translator, conf, task_queue, mode, per_claim
):
    conf(UNITS_PER_CLAIM=per_claim, WORKER_CONCURRENCY=2)
    scope = shared_site(task_queue, articles=8)
    assert translate(scope).status == "succeeded"
    billing_translator.reset()

    run = translate(scope, mode=mode)

    assert run.status == "succeeded"
    floor = 0
    for code in ("fr", "de"):
        sent = billing_translator.texts_sent(code)
        assert resent(sent) == {}
        assert sent.count("Opening hours may change.") == 1
        floor += sum(len(text) for text in set(sent))
    assert run_summary(run)["billed_characters"] == floor == billing_translator.billed()


def test_12_7_refresh_waits_for_a_text_another_worker_of_the_run_is_paying_for(
    translate, billing_translator, conf, task_queue, monkeypatch
):
    """Two workers' claims at once: while one worker's request for the shared texts is in
    flight, a second worker claims other pages needing them; it waits instead of paying, and
    its units then reuse what the first one paid for."""
    conf(UNITS_PER_CLAIM=2, MAX_UNITS_PER_CLAIM=2)  # claims of two pages that do not grow
    scope = shared_site(task_queue, articles=6)
    assert translate(scope, targets=("fr",)).status == "succeeded"
    billing_translator.reset()
    monkeypatch.setattr(translate_step, "WAIT_SECONDS", 0)
    # The first worker is suspended inside its call here, so the second cannot wait for it.
    monkeypatch.setattr(translate_step, "WAIT_FOR_OTHERS_SECONDS", 0)
    shared = "Opening hours may change."
    original = translate_step.call_translator
    second_worker = {"claimed": 0}

    def call_while_a_second_worker_claims(translator, source, locale, texts, *rest):
        if shared in texts and not second_worker["claimed"]:
            run = Run.objects.select_related("source_locale", "created_by").latest("pk")
            token, units = claims.claim_units(run.pk, 2)
            second_worker["claimed"] = len(units)
            worker.process_claim(claims.Claim(run, token), RunTranslators(run), units)
        return original(translator, source, locale, texts, *rest)

    monkeypatch.setattr(translate_step, "call_translator", call_while_a_second_worker_claims)

    run = translate(scope, targets=("fr",), mode="refresh")

    assert second_worker["claimed"] == 2
    assert run.status == "succeeded"
    sent = billing_translator.texts_sent("fr")
    assert resent(sent) == {}
    assert sent.count(shared) == 1
    assert run_summary(run)["billed_characters"] == billing_translator.billed()


def test_12_7_a_claim_waits_in_place_for_a_text_another_worker_is_paying_for(
    translate, billing_translator, conf, task_queue, monkeypatch
):
    """The second worker's units needing the shared text are not given back to the queue: the
    claim waits until the first worker stores its answer, then writes them at once."""
    conf(UNITS_PER_CLAIM=2, MAX_UNITS_PER_CLAIM=2)  # claims of two pages that do not grow
    scope = shared_site(task_queue, articles=6)
    assert translate(scope, targets=("fr",)).status == "succeeded"
    billing_translator.reset()
    shared = "Opening hours may change."
    original = translate_step.call_translator
    second_worker: dict[str, Any] = {"statuses": None, "polls": 0, "in_flight": []}

    def first_worker_answers(_seconds: float) -> None:
        """What the first worker does meanwhile: store its paid answers, release its texts."""
        second_worker["polls"] += 1
        run = Run.objects.latest("pk")
        request = uuid.uuid4()
        for text in second_worker["in_flight"]:
            SentText.objects.create(
                run=run,
                locale=Locale.objects.get(language_code="fr"),
                request=request,
                text_hash=text_hash(text),
                outcome=SentOutcome.TRANSLATED,
                translation=f"[fr] {text}",
            )
        TextReservation.objects.all().delete()

    def call_while_a_second_worker_claims(translator, source, locale, texts, *rest):
        if shared in texts and second_worker["statuses"] is None:
            second_worker["in_flight"] = texts
            run = Run.objects.select_related("source_locale", "created_by").latest("pk")
            token, units = claims.claim_units(run.pk, 2)
            clock = translate_step.time
            translate_step.time = SimpleNamespace(
                monotonic=clock.monotonic, sleep=first_worker_answers
            )
            try:
                worker.process_claim(claims.Claim(run, token), RunTranslators(run), units)
            finally:
                translate_step.time = clock
            second_worker["statuses"] = [
                (u.status, u.available_after)
                for u in Unit.objects.filter(pk__in=[u.pk for u in units])
            ]
        return original(translator, source, locale, texts, *rest)

    monkeypatch.setattr(translate_step, "call_translator", call_while_a_second_worker_claims)

    run = translate(scope, targets=("fr",), mode="refresh")

    assert run.status == "succeeded"
    assert second_worker["polls"] == 1
    assert second_worker["statuses"] == [(UnitStatus.SUCCEEDED, None)] * 2
    assert billing_translator.texts_sent("fr").count(shared) == 1


# --- a child page's texts go out only once its parent is written -------------------------------


def test_a_page_whose_parent_cannot_be_written_is_skipped_its_texts_kept(
    start, task_queue, recording_translator, conf
):
    """Texts go out whatever the tree level: the article's are paid for with its parent's, and
    kept when the parent then cannot be written (validation), for when it is fixed."""
    conf(UNITS_PER_CLAIM=10)  # home, news and the article in one claim
    home = f.home_page()
    news = f.index_page(home, "News")
    f.article(news, "A quiet story")
    f.locales()
    recording_translator.overrides["News"] = lambda text: "x" * 300  # its write fails

    run = start(scope=subtree(home), source_locale="en", target_locales=["fr"])
    task_queue.drain()

    assert len(recording_translator.calls) == 1  # one request for every level of the tree
    sent = recording_translator.texts_sent("fr")
    assert "News" in sent and "A quiet story" in sent
    statuses = dict(Unit.objects.filter(run=run).values_list("object_id", "status"))
    assert statuses[str(news.pk)] == UnitStatus.FAILED
    assert list(statuses.values()).count(UnitStatus.SKIPPED) == 1  # the article
    assert run_summary(run)["outcomes"]["skipped_parent_failed"] == 1
