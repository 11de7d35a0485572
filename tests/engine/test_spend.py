"""Money for translators that pay by the token: each request's spend in the ledger once, the
run's totals in every report, the preflight's estimate, and a quota pause resumed with changed
settings without paying twice for anything."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from django.urls import reverse
from wagtail.models import Locale

from tests import factories as f
from tests.admin.conftest import make_run
from tests.engine.test_failures import run_until
from tests.factories import subtree
from tests.translator_doubles import TOKEN_TRANSLATOR, TokenTranslator
from wagtail_bulk_translate.api import preflight, resume_run
from wagtail_bulk_translate.engine import ledger
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.management.reporting import format_preflight, format_summary
from wagtail_bulk_translate.models import Run, RunStatus, SentText, SpentRequest
from wagtail_bulk_translate.runs.summary import run_summary
from wagtail_bulk_translate.translators.base import Spend, Translations

pytestmark = pytest.mark.django_db


@pytest.fixture
def token_translator(conf):
    TokenTranslator.reset()
    conf(
        TRANSLATOR={"CLASS": TOKEN_TRANSLATOR, "OPTIONS": {"TEXTS_PER_REQUEST": 4}},
        UNITS_PER_CLAIM=3,
        RETRY_BACKOFF_SECONDS=0,
        CURRENCY="USD",
    )
    yield TokenTranslator
    TokenTranslator.reset()


@pytest.fixture
def magazine(task_queue):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    for i in range(5):
        f.article(news, f"Story {i}", summary="Opening hours may change.")
    task_queue.clear()
    return subtree(home)


def start_run(start, scope, targets=("fr", "de")) -> Run:
    return start(
        scope=scope,
        source_locale="en",
        target_locales=list(targets),
        publish_policy="publish",
    )


def test_each_request_spend_is_recorded_once_and_summed_per_run(
    start, task_queue, magazine, token_translator
):
    run = start_run(start, magazine)
    task_queue.drain()
    run.refresh_from_db()

    assert run.status == RunStatus.SUCCEEDED
    spent = token_translator.spent()
    assert SpentRequest.objects.filter(run=run).count() == len(token_translator.spends) > 2
    # One ledger request per provider request: its texts and its spend share the request id.
    requests = set(SentText.objects.filter(run=run).values_list("request", flat=True))
    assert requests == set(SpentRequest.objects.filter(run=run).values_list("request", flat=True))
    total = ledger.spend(run)
    assert total is not None
    assert (total.requests, total.prompt_tokens, total.completion_tokens) == (
        spent.requests,
        spent.prompt_tokens,
        spent.completion_tokens,
    )
    assert total.cost == pytest.approx(spent.cost, abs=1e-5)

    summary = run_summary(run)
    assert summary["spend"]["prompt_tokens"] == spent.prompt_tokens
    assert summary["spend"]["currency"] == "USD"
    # Tokens and cost only: a translator that pays by the token bills no character.
    assert summary["billed_characters"] is None
    assert summary["billed_characters_for_failed_units"] is None
    text = format_summary(summary)
    assert f"{spent.prompt_tokens:,} prompt + {spent.completion_tokens:,} completion" in text
    assert "billed" not in text


def test_runs_billed_by_the_character_show_no_spend(start, task_queue, magazine, conf):
    conf(TRANSLATOR={"CLASS": "tests.translator_doubles.BillingTranslator", "OPTIONS": {}})
    run = start_run(start, magazine)
    task_queue.drain()

    summary = run_summary(run)
    assert summary["spend"] is None
    assert "spent:" not in format_summary(summary)
    assert not SpentRequest.objects.exists()


def test_a_request_that_fails_part_way_records_what_it_spent():
    run = make_run(units=0)
    locale = Locale.objects.get(language_code="fr")
    partial = Translations(
        texts={"Hello": "Bonjour"}, spend=Spend(2, 300, 40, 0.0012)
    )  # the quota ran out after one text
    ledger.record_request(run, locale.pk, ["Hello"], {}, partial)
    ledger.record_request(run, locale.pk, ["Bye"], {}, Translations(texts={"Bye": "Salut"}))

    assert ledger.spend(run) == Spend(2, 300, 40, pytest.approx(0.0012))
    assert SentText.objects.filter(run=run).count() == 2


def test_a_quota_pause_resumes_with_the_changed_settings_and_pays_nothing_twice(
    start, task_queue, magazine, token_translator, conf
):
    """The account's credit runs out (OpenAI's insufficient_quota): the run pauses. The
    editor changes the translator's options (here a new option and the batch size) and
    resumes: resume pins today's options (secrets are never stored on runs, they are read from
    settings each time), the run completes, and no text is paid for twice."""
    options = {"QUOTA_AFTER_CALLS": 2, "TEXTS_PER_REQUEST": 2}  # more than two requests
    conf(TRANSLATOR={"CLASS": TOKEN_TRANSLATOR, "OPTIONS": options})
    run = start_run(start, magazine)
    run_until(task_queue, lambda: Run.objects.get(pk=run.pk).status == RunStatus.PAUSED)
    run.refresh_from_db()
    assert run.error_code == ErrorCode.QUOTA_EXCEEDED
    paid_before = SpentRequest.objects.filter(run=run).count()
    assert paid_before == 2

    conf(TRANSLATOR={"CLASS": TOKEN_TRANSLATOR, "OPTIONS": {"TEXTS_PER_REQUEST": 3}})
    assert resume_run(run.pk)
    run.refresh_from_db()
    assert run.translator_options == {"TEXTS_PER_REQUEST": 3}
    assert "QUOTA_AFTER_CALLS" in run.translator_change
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    sent = Counter((code, text) for code, texts in token_translator.calls for text in texts)
    assert [key for key, n in sent.items() if n > 1] == []  # nothing paid twice
    assert SpentRequest.objects.filter(run=run).count() == len(token_translator.spends)
    assert max(len(texts) for _, texts in token_translator.calls[2:]) == 3  # the new option


def test_the_preflight_shows_the_translators_token_estimate(magazine, token_translator):
    en = Locale.objects.get(language_code="en")
    estimate = preflight(magazine, en, ["fr", "de"])

    assert estimate.spend is not None
    assert estimate.spend.prompt_tokens > 0
    assert estimate.estimated_cost == Decimal(str(estimate.spend.cost)).quantize(Decimal("0.0001"))
    assert estimate.as_dict()["estimated_spend"]["prompt_tokens"] == estimate.spend.prompt_tokens
    text = format_preflight(estimate)
    assert "Tokens: about" in text
    assert "per million characters" not in text


def test_the_preflight_estimate_lands_near_what_the_run_records(
    start, task_queue, magazine, token_translator
):
    en = Locale.objects.get(language_code="en")
    estimate = preflight(magazine, en, ["fr", "de"])
    run = start_run(start, magazine)
    task_queue.drain()

    recorded = ledger.spend(Run.objects.get(pk=run.pk))
    assert estimate.spend is not None and recorded is not None
    assert estimate.spend.prompt_tokens == pytest.approx(recorded.prompt_tokens, rel=0.25)


def test_the_admin_shows_tokens_and_cost(admin_client, conf):
    conf(CURRENCY="USD")
    run = make_run(units=4, status="succeeded")
    Run.objects.filter(pk=run.pk).update(translator_class=TOKEN_TRANSLATOR)
    locale = Locale.objects.get(language_code="fr")
    spend = Spend(3, 12_345, 2_345, 0.0431)
    ledger.record_request(run, locale.pk, [], {}, Translations(spend=spend))
    plain = make_run(units=4, status="succeeded")

    page = admin_client.get(reverse("wagtail_bulk_translate:inspect", args=[run.pk]))
    html = page.content.decode()
    assert "data-bt-spend" in html and "12,345" in html and "0.0431 USD" in html
    assert "data-bt-characters" not in html  # no "Characters billed" beside the tokens
    status = admin_client.get(reverse("wagtail_bulk_translate:status", args=[run.pk])).json()
    assert status["spend"]["completion_tokens"] == 2_345
    plain_page = admin_client.get(reverse("wagtail_bulk_translate:inspect", args=[plain.pk]))
    assert "data-bt-spend" not in plain_page.content.decode()
    assert "data-bt-characters" in plain_page.content.decode()

    listing = admin_client.get(reverse("wagtail_bulk_translate:index")).content.decode()
    assert "14,690 tokens, 0.0431 USD" in listing

    Run.objects.filter(pk=plain.pk).update(finished_at=run.created_at)
    Run.objects.filter(pk=run.pk).update(finished_at=plain.created_at)
    dashboard = admin_client.get(reverse("wagtailadmin_home")).content.decode()
    assert "14,690 tokens, 0.0431 USD" in dashboard
