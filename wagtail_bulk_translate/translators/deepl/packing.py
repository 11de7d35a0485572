"""Packing texts into DeepL requests, and checking the markup DeepL sends back."""

from __future__ import annotations

from collections import Counter
from json import dumps
from typing import Any

from bs4 import BeautifulSoup, Tag
from wagtail_localize.strings import StringValue, lstrip_keep, rstrip_keep

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


def tag_signature(html: str) -> Counter:
    soup = BeautifulSoup(html, "html.parser")
    return Counter((el.name, el.attrs.get("id")) for el in soup.descendants if isinstance(el, Tag))


def describe_tag(name: str, link_id: str | None) -> str:
    return f'<{name} id="{link_id}">' if link_id else f"<{name}>"


def markup_problem(source: str, translated: str) -> str | None:
    """Why ``translated`` cannot stand for ``source``, or None: every inline tag and link id
    of the source must come back once, and nothing wagtail-localize refuses may be added."""
    try:
        StringValue.from_translated_html(translated)
    except ValueError as err:
        return str(err)
    expected, found = tag_signature(source), tag_signature(translated)
    missing, extra = expected - found, found - expected
    if missing:
        return "missing " + ", ".join(describe_tag(*tag) for tag in sorted(missing, key=str))
    if extra:
        return "unexpected " + ", ".join(describe_tag(*tag) for tag in sorted(extra, key=str))
    return None


def with_whitespace_of(text: str, translated: str) -> str:
    """Put back the whitespace around ``text`` that DeepL was not sent."""
    _, leading = lstrip_keep(text)
    _, trailing = rstrip_keep(text)
    return f"{leading}{translated.strip()}{trailing}"
