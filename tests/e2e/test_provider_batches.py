"""Batch price with real workers: the demo site through a language model's Batch API (the fake
OpenAI server, reached over HTTP by the worker processes), the workers idle while the batch
waits, and a worker SIGKILLed while submitting or while taking the answers in: nothing is
submitted twice, nothing paid twice."""

from __future__ import annotations

import json
import time

import pytest

from tests.e2e.helpers import assert_run_is_whole, manage, translate_seeded_site
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.e2e

LLM_CLASS = "wagtail_bulk_translate.translators.llm.LLMTranslator"


@pytest.fixture
def fake_server():
    with FakeOpenAI() as fake:
        yield fake


def batch_env(env: dict, fake: FakeOpenAI) -> dict:
    options = {
        "BASE_URL": fake.base_url,
        "API_KEY": "sk-e2e",
        "MODEL": "fake-model",
        "TIMEOUT": 3,  # one call within the crash settings' 4 s lease
        "MAX_RETRIES": 0,
        "MAX_TEXTS_PER_REQUEST": 15,
        "PRICES": {"fake-model": {"input": 0.15, "output": 0.6}},
        "BATCH": True,
    }
    settings = json.loads(env["WBT_SETTINGS"])
    settings.update(TRANSLATOR={"CLASS": LLM_CLASS, "OPTIONS": options}, MAX_ATTEMPTS=10)
    return {**env, "WBT_SETTINGS": json.dumps(settings)}


def batch_lines_answered(fake: FakeOpenAI) -> list[tuple[str, str]]:
    """(locale, text) of every item the fake answered, batch lines and requests alike."""
    return [
        (request.batch["target_language"], text)
        for request in fake.answered()
        for text in request.items.values()
    ]


def ledger_counts(env: dict) -> dict:
    out = manage(env, "shell", "-c", SPENT).stdout
    return json.loads(out.strip().splitlines()[-1])


SPENT = """
import json
from wagtail_bulk_translate.models import ProviderBatch, SentText, SpentRequest
hashes = list(SentText.objects.filter(outcome="translated").values_list("locale_id", "text_hash"))
print(json.dumps({
    "spent_requests": SpentRequest.objects.count(),
    "batches": ProviderBatch.objects.count(),
    "states": sorted(ProviderBatch.objects.values_list("state", flat=True)),
    "translated_twice": len(hashes) - len(set(hashes)),
}))
"""


def test_a_batch_run_with_workers_succeeds_at_the_batch_price(crash_env, fake_server):
    env = batch_env(crash_env, fake_server)
    fake_server.batch_delay = 4  # the workers go idle meanwhile

    summary, pool = translate_seeded_site(env, pages=12, workers=2, timeout=240)

    assert pool.deaths == 0
    assert_run_is_whole(env, summary)
    assert fake_server.batches_created >= 1
    assert all(getattr(r, "batch_id", None) for r in fake_server.answered())  # no sync call
    counts = ledger_counts(env)
    assert counts["translated_twice"] == 0 and set(counts["states"]) == {"ingested"}
    assert float(summary["spend"]["cost"]) > 0


@pytest.mark.parametrize("crash_at", ["batch_submit", "batch_ingest"])
def test_a_worker_killed_in_a_batch_pays_and_submits_nothing_twice(
    crash_env, fake_server, crash_at
):
    crash_env["WBT_CRASH_AT"] = crash_at
    env = batch_env(crash_env, fake_server)
    started = time.monotonic()

    summary, pool = translate_seeded_site(env, pages=12, workers=1, timeout=240)

    assert pool.deaths == 1, "the crash point must have fired exactly once"
    assert_run_is_whole(env, summary)
    counts = ledger_counts(env)
    assert counts["batches"] == fake_server.batches_created  # none submitted twice
    assert counts["translated_twice"] == 0  # none paid twice
    answered = batch_lines_answered(fake_server)
    assert len(answered) == len(set(answered)), "a text went to the provider twice"
    assert time.monotonic() - started < 240
