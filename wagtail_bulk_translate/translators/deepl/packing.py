"""Packing texts into DeepL requests (the markup DeepL sends back is checked by
:mod:`..inline_markup`, shared with the language-model translator)."""

from __future__ import annotations

from json import dumps
from typing import Any

from ..inline_markup import markup_problem, with_whitespace_of

__all__ = ["encoded_size", "markup_problem", "pack", "with_whitespace_of"]

DEEPL_MAX_TEXTS = 50
DEEPL_MAX_BYTES = 128 * 1024


def encoded_size(value: Any) -> int:
    """Bytes ``value`` takes in the client's JSON body.

    requests encodes with json.dumps' default ensure_ascii=True: "é" is 6 bytes ("\\u00e9"),
    an emoji 12, a quote 2 — never fewer bytes than UTF-8, so this bound holds either way.
    """
    return len(dumps(value).encode())


def pack(
    texts: list[str], max_texts: int, max_bytes: int, overhead: int
) -> tuple[list[list[str]], list[str]]:
    """Split texts into requests of ≤ max_texts texts and ≤ max_bytes bytes, in order.

    Returns the batches and the texts too large to fit in a request on their own.
    """
    batches: list[list[str]] = []
    too_large: list[str] = []
    batch: list[str] = []
    size = overhead
    for text in texts:
        cost = encoded_size(text) + 2  # ", " between list items
        if overhead + cost > max_bytes:
            too_large.append(text)
            continue
        if batch and (len(batch) >= max_texts or size + cost > max_bytes):
            batches.append(batch)
            batch, size = [], overhead
        batch.append(text)
        size += cost
    if batch:
        batches.append(batch)
    return batches, too_large
