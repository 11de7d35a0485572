"""Checks of a translated inline-HTML text against its source, for every translator.

wagtail-localize's inline markup (``<b>``, ``<a id="a1">``, ``<br/>``) must come back whole:
each tag and link id once, nothing wagtail-localize would refuse to store.
"""

from __future__ import annotations

from collections import Counter

from bs4 import BeautifulSoup, Tag
from wagtail_localize.strings import StringValue, lstrip_keep, rstrip_keep


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
    """Put back the whitespace around ``text`` that the provider was not sent."""
    _, leading = lstrip_keep(text)
    _, trailing = rstrip_keep(text)
    return f"{leading}{translated.strip()}{trailing}"
