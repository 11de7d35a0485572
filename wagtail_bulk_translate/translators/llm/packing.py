"""Packing texts into model requests: an object's texts together, in document order.

A request carries at most ``MAX_TEXTS_PER_REQUEST`` items and about
``MAX_CHARACTERS_PER_REQUEST`` characters of texts and their context (a text larger than that
goes alone). With a ``context`` mapping (:class:`~..base.TextContext` per text) the texts are
grouped by object, each object's in document order, and sent under the object's type, title and
URL with each text's field label; without one (wagtail-localize's per-page "Machine translate"
button, or an engine that does not pass it) they go in the order given, as one document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import TextContext
from .markup import Protected

DEFAULT_MAX_CHARACTERS = 8_000
DEFAULT_MAX_TEXTS = 40
# JSON keys and punctuation around each item ({"id": "12", "field": "", "text": ""}).
ITEM_OVERHEAD = 32


def document_order(texts: list[str], context: Mapping[str, TextContext] | None) -> list[str]:
    """``texts`` grouped by object (objects in order of first appearance), each object's in
    document order; texts without context keep their place among the groups."""
    if not context:
        return list(dict.fromkeys(texts))
    groups: dict[str, list[str]] = {}
    for index, text in enumerate(dict.fromkeys(texts)):
        where = context.get(text)
        groups.setdefault(where.object_key if where else f"\0{index}", []).append(text)

    def position(text: str) -> int:
        where = context.get(text)
        return where.position if where else 0

    return [text for group in groups.values() for text in sorted(group, key=position)]


def item_size(text: str, where: TextContext | None) -> int:
    size = len(text) + ITEM_OVERHEAD
    if where is not None:
        size += len(where.field)
    return size


def pack(
    texts: list[str],
    context: Mapping[str, TextContext] | None,
    protected: Mapping[str, Protected],
    max_characters: int,
    max_texts: int,
) -> list[list[str]]:
    """Split ``texts`` (in document order) into batches within both limits."""
    batches: list[list[str]] = []
    batch: list[str] = []
    size = 0
    for text in document_order(texts, context):
        cost = item_size(protected[text].text, (context or {}).get(text))
        if batch and (len(batch) >= max(max_texts, 1) or size + cost > max_characters):
            batches.append(batch)
            batch, size = [], 0
        batch.append(text)
        size += cost
    if batch:
        batches.append(batch)
    return batches


def documents(
    ids: Mapping[str, str],
    context: Mapping[str, TextContext] | None,
    protected: Mapping[str, Protected],
) -> list[dict[str, Any]]:
    """The batch as the prompt's documents: ``ids`` maps each text to its item id."""
    docs: dict[str, dict[str, Any]] = {}
    for text, item_id in ids.items():
        where = (context or {}).get(text)
        key = where.object_key if where else ""
        if key not in docs:
            docs[key] = document_header(where)
        item = {"id": item_id}
        if where is not None and where.field:
            item["field"] = where.field
        item["text"] = protected[text].text
        docs[key]["items"].append(item)
    return list(docs.values())


def document_header(where: TextContext | None) -> dict[str, Any]:
    header: dict[str, Any] = {}
    if where is not None:
        for name, value in (
            ("type", where.object_type),
            ("title", where.object_title),
            ("url", where.object_url),
        ):
            if value:
                header[name] = value
    header["items"] = []
    return header
