"""A language model's Batch API: the requests a run would send, as batch lines, and their
answers read with the same checks as a synchronous call.

Each line is the Chat Completions request :class:`.call.TranslateCall` would send (same packing,
prompt, context and glossary). Its answer goes through the same reading: an unreadable answer,
ids left out, broken placeholders leave those texts untranslated (the engine sends them on the
synchronous path, with its retries and splitting); a suspicious translation is refused as it
would be. The tokens are priced at the batch price (``BATCH_PRICE_FACTOR`` of the price table).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..base import Spend, TextContext, Translations
from . import answers
from .call import CallTranslator, TranslateCall
from .markup import protect

if TYPE_CHECKING:
    from .http import Answer


class BatchTranslator(CallTranslator, Protocol):
    """What batch lines need of their translator (``LLMTranslator`` is one)."""

    def request_params(self, messages: list[dict[str, str]]) -> dict[str, Any]: ...


def batchable(texts: list[str]) -> list[str]:
    """Texts worth a request (whitespace alone is translated by itself, free)."""
    return [text for text in dict.fromkeys(texts) if text.strip()]


def prepared_call(
    translator: BatchTranslator,
    source_code: str,
    target_code: str,
    texts: list[str],
    context: Mapping[str, TextContext] | None,
) -> TranslateCall:
    call = TranslateCall(translator, source_code, target_code, context)
    for text in batchable(texts):
        call.bodies.setdefault(text.strip(), []).append(text)
    call.protected = {body: protect(body) for body in call.bodies}
    return call


def batch_lines(
    translator: BatchTranslator,
    source_code: str,
    target_code: str,
    texts: list[str],
    context: Mapping[str, TextContext] | None = None,
) -> list[dict[str, Any]]:
    """The batch's lines: ``custom_id``, the request ``body``, its item ``ids`` ({text body:
    id}) and the ``texts`` it translates."""
    call = prepared_call(translator, source_code, target_code, texts, context)
    lines = []
    for number, batch in enumerate(call.batches(list(call.bodies)), start=1):
        ids = {body: str(n) for n, body in enumerate(batch, start=1)}
        lines.append(
            {
                "custom_id": f"r{number}",
                "body": translator.request_params(call.messages(ids)),
                "ids": ids,
                "texts": [text for body in batch for text in call.bodies[body]],
            }
        )
    return lines


def read_answers(
    translator: BatchTranslator,
    source_code: str,
    target_code: str,
    lines: list[dict[str, Any]],
    answered: Mapping[str, Answer | None],
    price_factor: float,
) -> Translations:
    """What the batch's answers translate (``answered``: {custom_id: its answer, None or
    absent when the provider failed it}); what they leave out stays untranslated."""
    texts = [text for line in lines for text in line["texts"]]
    call = prepared_call(translator, source_code, target_code, texts, None)
    for line in lines:
        answer = answered.get(line["custom_id"])
        if answer is None:
            continue
        ids: dict[str, str] = line["ids"]
        call.pay(list(ids), answer)
        try:
            found, _missing = answers.read(
                answer.content, answer.finish_reason, answer.refusal, list(ids.values())
            )
        except answers.BadAnswer:
            continue  # sent again on the synchronous path
        for body, item_id in ids.items():
            if item_id in found:
                call.accept(body, found[item_id])
    result = call.result()
    spend = result.spend or Spend()
    result.spend = Spend(
        spend.requests, spend.prompt_tokens, spend.completion_tokens, spend.cost * price_factor
    )
    return result
