"""Benchmark 12: batch price. The same pages into the same locales, once with synchronous
requests (the baseline) and once through the Batch API (``BATCH``: the fake OpenAI server's
``/v1/files`` and ``/v1/batches``), both with the real ``LLMTranslator`` over the wire; the cost
each run recorded in its ledger gives the ratio (the issue's target: half the price).

The synchronous run uses ``refresh`` mode, so the batch run, which follows it on the same pages,
pays for every text again instead of finding it in translation memory.
"""

from __future__ import annotations

from typing import Any

from .harness import (
    Config,
    Result,
    check_succeeded,
    content_pages,
    pages_scope,
    process_in_process,
    start_bulk_run,
)
from .token_spend import llm_on_fake_server, translator_setting

TARGET_RATIO = 0.55
# Each poll of a batch the fake answers at once takes it in: a few polls are plenty.
MAX_POLLS = 20


def translate(pages: list[Any], targets: list[str], translator: dict[str, Any]) -> Any:
    """A run of the pages into the targets, its batches (if any) polled until it is done."""
    from wagtail_bulk_translate.engine.batch_poll import poll_batches, waiting_batches
    from wagtail_bulk_translate.engine.worker import process_run

    with translator_setting(translator):
        run = start_bulk_run(pages_scope(pages), targets, mode="refresh")
        process_in_process(run.pk)
        for _poll in range(MAX_POLLS):
            if not waiting_batches().filter(run=run).exists():
                return check_succeeded(run.pk)
            report = poll_batches()
            while process_run(run.pk, time_budget=3600).more_work:
                pass
        states = list(waiting_batches().filter(run=run).values("state", "provider_status"))
        raise RuntimeError(f"Run {run.pk}'s batches are still waiting: {states}, {report}")


def run(config: Config) -> list[Result]:
    from wagtail_bulk_translate.engine.ledger import spend
    from wagtail_bulk_translate.models import ProviderBatch

    pages = content_pages(config.sample)
    with llm_on_fake_server() as synchronous:
        baseline = spend(translate(pages, config.targets, synchronous))
        batched = {**synchronous, "OPTIONS": {**synchronous["OPTIONS"], "BATCH": True}}
        run = translate(pages, config.targets, batched)
    ours = spend(run)
    if baseline is None or ours is None or not baseline.cost:
        raise RuntimeError("The translator under test reported no spend.")
    ratio = ours.cost / baseline.cost
    batches = ProviderBatch.objects.filter(run=run).count()
    return [
        Result(
            "12 batch price",
            "cost of a batch run / a synchronous run",
            round(ours.cost, 6),
            round(baseline.cost, 6),
            f"≤ {TARGET_RATIO}",
            ratio <= TARGET_RATIO,
            f"{len(pages)} pages x {len(config.targets)} locales: {ours.requests} requests in "
            f"{batches} provider batch(es), {ours.prompt_tokens + ours.completion_tokens} "
            f"tokens, vs {baseline.requests} synchronous requests, "
            f"{baseline.prompt_tokens + baseline.completion_tokens} tokens",
        ),
    ]
