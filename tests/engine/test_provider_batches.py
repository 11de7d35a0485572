"""Batch price for language models: a run's requests go out as one provider batch (the fake
OpenAI server's Batch API), its units wait without a worker, the poller takes the answers in
at the batch price, and what a batch leaves out goes through the synchronous path.

Lost submissions and double ingestion are driven here by hand; tests/e2e/test_provider_batches
kills real worker processes at the same points.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tests.lookups import translated
from tests.translators.conftest import LLM_CLASS, llm_options
from wagtail_bulk_translate.api import cancel_run, preflight, run_summary
from wagtail_bulk_translate.engine import batch_poll, provider_batches
from wagtail_bulk_translate.models import (
    BatchState,
    BudgetReservation,
    ProviderBatch,
    Run,
    SentText,
    SpentRequest,
    Unit,
    UnitStatus,
)

pytestmark = pytest.mark.django_db

PRICE_IN, PRICE_OUT = 0.5, 2.0  # per million tokens (llm_options' price table)


@pytest.fixture
def batching(conf, fake_openai):
    conf(
        TRANSLATOR={"CLASS": LLM_CLASS, "OPTIONS": llm_options(fake_openai, BATCH=True)},
        RETRY_BACKOFF_SECONDS=0,
    )
    return fake_openai


@pytest.fixture
def run_until_waiting(start, site, task_queue):
    def _run(locales=("fr",)) -> Run:
        run = start(scope=site.scope, source_locale="en", target_locales=list(locales))
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _run


@pytest.fixture
def poll(django_capture_on_commit_callbacks):
    """One poll, its on-commit work (queueing workers) done as on a real database."""

    def _poll() -> batch_poll.PollReport:
        with django_capture_on_commit_callbacks(execute=True):
            return batch_poll.poll_batches()

    return _poll


def poll_and_finish(task_queue, run: Run, poll) -> Run:
    poll()
    task_queue.drain()
    run.refresh_from_db()
    return run


def synchronous_requests(fake) -> list:
    return [r for r in fake.answered() if getattr(r, "batch_id", None) is None]


def test_a_batch_run_waits_without_a_worker_and_is_paid_at_the_batch_price(
    batching, run_until_waiting, task_queue, site, poll
):
    batching.batch_delay = 3600  # the provider takes its time
    run = run_until_waiting()

    assert batching.batches_created == 1
    assert synchronous_requests(batching) == []
    units = Unit.objects.filter(run=run)
    assert {u.status for u in units} == {UnitStatus.PENDING}
    assert all(u.waiting_batch_id and u.lease_token is None for u in units)
    assert not units.claimable().exists()
    assert run.status == "running" and task_queue.pending() == []  # no worker task waits
    (batch,) = ProviderBatch.objects.all()
    assert batch.state == BatchState.SUBMITTED and batch.provider_batch_id
    assert run_summary(run)["status"] == "running"

    assert poll().ingested == 0  # not done yet
    batching.batch_delay = 0
    run = poll_and_finish(task_queue, run, poll)

    assert run.status == "succeeded"
    assert all(translated(page, "fr") for page in (site.home, site.news, site.story))
    assert synchronous_requests(batching) == []  # every text came from the batch
    (spent,) = SpentRequest.objects.filter(run=run)
    full_price = (spent.prompt_tokens * PRICE_IN + spent.completion_tokens * PRICE_OUT) / 1e6
    assert spent.cost == Decimal(str(round(full_price * 0.5, 6)))
    assert spent.calls == batch.request_count
    assert ProviderBatch.objects.get().state == BatchState.INGESTED


def test_the_preflight_shows_the_batch_price(batching, conf, fake_openai, site):
    batched = preflight(site.scope, "en", ["fr"]).spend
    conf(TRANSLATOR={"CLASS": LLM_CLASS, "OPTIONS": llm_options(fake_openai)})
    synchronous = preflight(site.scope, "en", ["fr"]).spend

    assert batched.prompt_tokens == synchronous.prompt_tokens
    assert batched.cost == pytest.approx(synchronous.cost * 0.5)
    warnings = preflight(site.scope, "en", ["fr"]).warnings
    assert not any("Batch API" in w for w in warnings)  # the synchronous profile
    conf(TRANSLATOR={"CLASS": LLM_CLASS, "OPTIONS": llm_options(fake_openai, BATCH=True)})
    warnings = preflight(site.scope, "en", ["fr"]).warnings
    assert any("Batch API" in w and "within 24h" in w for w in warnings)


def test_what_an_expired_batch_left_out_goes_through_the_synchronous_path(
    batching, run_until_waiting, task_queue, conf, fake_openai, poll
):
    conf(
        TRANSLATOR={
            "CLASS": LLM_CLASS,
            "OPTIONS": llm_options(fake_openai, BATCH=True, MAX_TEXTS_PER_REQUEST=2),
        }
    )
    batching.batch_outcome("expired")
    run = run_until_waiting()

    run = poll_and_finish(task_queue, run, poll)

    assert run.status == "succeeded"
    assert ProviderBatch.objects.get().state == BatchState.EXPIRED
    batched = {
        t for r in batching.answered() if getattr(r, "batch_id", None) for t in r.items.values()
    }
    resent = {t for r in synchronous_requests(batching) for t in r.items.values()}
    assert batched and resent and not batched & resent  # each text paid once
    assert ProviderBatch.objects.count() == 1  # a text is batched once per run and locale


def test_a_failed_batch_sends_its_texts_synchronously(
    batching, run_until_waiting, task_queue, poll
):
    batching.batch_outcome("failed")
    run = run_until_waiting()

    run = poll_and_finish(task_queue, run, poll)

    assert run.status == "succeeded"
    assert ProviderBatch.objects.get().state == BatchState.FAILED
    assert synchronous_requests(batching)


def test_cancelling_a_run_cancels_its_batch_at_the_provider(batching, run_until_waiting):
    batching.batch_delay = 3600
    run = run_until_waiting()

    cancel_run(run.pk)

    batch = ProviderBatch.objects.get()
    assert batch.state == BatchState.CANCELLED
    assert batching.batch(batch.provider_batch_id).status in ("cancelling", "cancelled")
    assert {u.status for u in Unit.objects.filter(run=run)} == {UnitStatus.CANCELLED}
    assert not SentText.objects.filter(run=run).exists()


def test_a_submission_whose_worker_died_is_found_again_not_sent_twice(
    batching, run_until_waiting, task_queue, monkeypatch, poll
):
    def killed_after_the_provider_created_it(translator, batch):
        translator.submit_batch(batch.requests, str(batch.token))
        raise SystemExit("killed")  # the row is never told the provider's batch id

    monkeypatch.setattr(provider_batches, "send", killed_after_the_provider_created_it)
    with pytest.raises(SystemExit):
        run_until_waiting()
    monkeypatch.undo()
    batch = ProviderBatch.objects.get()
    assert batch.state == BatchState.SUBMITTING and batching.batches_created == 1

    assert poll().recovered == 0  # its worker may still be at it
    age_past_a_lease(batch)
    assert poll().recovered == 1

    batch.refresh_from_db()
    assert batch.state == BatchState.SUBMITTED and batch.provider_batch_id
    assert batching.batches_created == 1  # adopted, not submitted again


def test_a_submission_that_never_reached_the_provider_is_sent_by_the_poller(
    batching, run_until_waiting, task_queue, monkeypatch, poll
):
    def killed_before_sending(translator, batch):
        raise SystemExit("killed")

    monkeypatch.setattr(provider_batches, "send", killed_before_sending)
    with pytest.raises(SystemExit):
        run_until_waiting()
    monkeypatch.undo()
    age_past_a_lease(ProviderBatch.objects.get())

    poll()

    assert batching.batches_created == 1
    assert ProviderBatch.objects.get().state == BatchState.SUBMITTED


def test_a_batch_is_taken_in_once_however_many_polls_see_it_done(
    batching, run_until_waiting, task_queue
):
    run = run_until_waiting()
    batch = ProviderBatch.objects.get()
    translator = batch_poll.translator_of(batch)
    status = translator.batch_status(batch.provider_batch_id)

    assert batch_poll.ingest(batch, translator, status)
    assert not batch_poll.ingest(batch, translator, status)  # a second poll, late

    assert SpentRequest.objects.filter(run=run).count() == 1
    texts = SentText.objects.filter(run=run).values_list("text_hash", flat=True)
    assert len(texts) == len(set(texts))


def test_a_budget_counts_a_batch_from_its_submission(batching, run_until_waiting, conf):
    conf(BUDGETS={"daily": {"cost": 1000}})
    batching.batch_delay = 3600

    run = run_until_waiting()

    batch = ProviderBatch.objects.get()
    reservation = BudgetReservation.objects.get(token=batch.token)
    assert reservation.cost > 0 and reservation.run_id == run.pk
    assert reservation.expires_at > timezone.now() + timedelta(hours=23)


def age_past_a_lease(batch: ProviderBatch) -> None:
    ProviderBatch.objects.filter(pk=batch.pk).update(created_at=timezone.now() - timedelta(hours=1))
