"""The demo site translated by real workers through the language-model translator, against the
fake OpenAI-compatible server (the workers reach it over HTTP with the official client)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.e2e.helpers import (
    assert_run_is_whole,
    manage,
    start_whole_site_run,
    start_workers,
    stop_workers,
    translate_seeded_site,
    wait_for_run,
)
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.e2e

LLM_CLASS = "wagtail_bulk_translate.translators.llm.LLMTranslator"


def llm_env(site_env: dict, fake: FakeOpenAI, **overrides) -> dict:
    """The sandbox's settings with the LLM translator on ``fake``."""
    options = {
        "BASE_URL": fake.base_url,
        "API_KEY": "sk-e2e",
        "MODEL": "fake-model",
        "RETRY_BACKOFF_SECONDS": 0.05,
        "TIMEOUT": 30,
        "MAX_TEXTS_PER_REQUEST": 15,
        "PRICES": {"fake-model": {"input": 0.15, "output": 0.6}},
    }
    settings = {
        "TRANSLATOR": {"CLASS": LLM_CLASS, "OPTIONS": options},
        "RETRY_BACKOFF_SECONDS": 0.2,
        **overrides,
    }
    return {
        **site_env,
        "DJANGO_SETTINGS_MODULE": "tests.e2e.settings",
        "WBT_SETTINGS": json.dumps(settings),
    }


def paid_twice(fake: FakeOpenAI) -> list[tuple[str, str]]:
    """(locale, text) pairs the fake answered more than once."""
    sent = Counter(
        (request.batch["target_language"], text)
        for request in fake.answered()
        for text in request.items.values()
    )
    return sorted(pair for pair, count in sent.items() if count > 1)


@pytest.fixture
def fake_server():
    with FakeOpenAI() as fake:
        yield fake


def test_a_demo_run_through_a_language_model_succeeds_paying_each_text_once(site_env, fake_server):
    env = llm_env(site_env, fake_server)
    summary, pool = translate_seeded_site(env, pages=12, workers=2, timeout=180)

    assert pool.deaths == 0
    assert_run_is_whole(env, summary)
    assert fake_server.answered()
    assert paid_twice(fake_server) == []
    assert {r.status for r in fake_server.requests} == {200}


def test_an_exhausted_quota_pauses_the_run_and_resume_finishes_it(site_env, fake_server):
    env = llm_env(site_env, fake_server, QUOTA_RETRY_SECONDS=3600)
    manage(env, "seed_demo", "--pages", "10")
    fake_server.exhaust_quota_after(4)
    workers = start_workers(env, 2)
    try:
        start_whole_site_run(env)
        paused = wait_for_run(env)
        assert paused["status"] == "paused", paused
        assert paused["units"].get("failed", 0) == 0, paused
        assert fake_server.quota_exceeded

        fake_server.quota_exceeded = False
        manage(env, "bulk_translate", "resume", str(paused["id"]))
        summary = wait_for_run(env)
    finally:
        stop_workers(workers)

    assert summary["status"] == "succeeded", summary
    assert summary["units"]["succeeded"] == summary["units_total"]
    # What the model answered before the pause was stored, not asked (and paid) again.
    assert paid_twice(fake_server) == []


def test_the_sandbox_demo_switches_to_the_language_model_with_environment_variables(
    site_env, fake_server
):
    env = {
        **site_env,
        "LLM_MODEL": "fake-model",
        "LLM_BASE_URL": fake_server.base_url,
        "OPENAI_API_KEY": "sk-demo",
    }
    result = manage(env, "demo", "--pages", "10", "--canary", "4", timeout=600)
    output = result.stdout + result.stderr

    assert "Run #1 (canary): succeeded" in output, output
    assert "Run #2 (changed): succeeded" in output, output
    assert "Traceback" not in output, output
    assert fake_server.answered()
    assert {r.headers["authorization"] for r in fake_server.requests} == {"Bearer sk-demo"}
    assert paid_twice(fake_server) == []
