"""Inline markup ↔ placeholders the model must keep.

wagtail-localize hands over inline HTML (``Read <a id="a1">the <b>guide</b></a><br/>``; link
targets are already replaced by ids). The model sees bare numbered tags instead
(``Read <1>the <2>guide</2></1><3/>``): no attribute value of any tag is sent, entities are sent
as the characters they stand for. An answer is turned back into HTML only when its placeholders
are exactly the source's, each once and properly nested; otherwise :class:`BrokenMarkup` says
what is wrong, and the translator retries the text once before refusing it (``invalid_markup``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from html import escape, unescape

from ..inline_markup import markup_problem

TAG = re.compile(r"<[^<>]*>")
PIECES = re.compile(f"({TAG.pattern})")  # text at even indexes, tags at odd ones
VOID_TAGS = {"br", "hr", "img", "wbr"}
PLACEHOLDER = re.compile(r"<(/?)(\d+)(/?)>")


class BrokenMarkup(ValueError):
    """The model's answer lost, added, duplicated or mis-nested a placeholder."""


@dataclass
class Protected:
    """A text as the model sees it, and how to put its markup back."""

    source: str
    text: str
    tags: dict[str, str] = field(default_factory=dict)  # "<1>", "</1>", "<2/>" → original tag

    def restore(self, answer: str) -> str:
        """The answer as inline HTML, or BrokenMarkup."""
        found = PLACEHOLDER.findall(answer)
        tokens = [f"<{close}{number}{empty}>" for close, number, empty in found]
        expected = Counter(list(self.tags))
        if Counter(tokens) != expected:
            missing = sorted((expected - Counter(tokens)).elements())
            extra = sorted((Counter(tokens) - expected).elements())
            raise BrokenMarkup(describe(missing, extra))
        check_nesting(tokens)
        parts = PLACEHOLDER.split(answer)
        html = []
        # re.split with 3 groups: text, close, number, empty, text, ...
        for index in range(0, len(parts), 4):
            html.append(escape(parts[index], quote=False))
            if index + 3 < len(parts):
                close, number, empty = parts[index + 1 : index + 4]
                html.append(self.tags[f"<{close}{number}{empty}>"])
        return "".join(html)


def protect(html: str) -> Protected:
    """Replace each tag of ``html`` by a numbered placeholder without attributes."""
    protected = Protected(html, "")
    out: list[str] = []
    open_tags: list[tuple[str, str]] = []  # (tag name, placeholder number)
    number = 0
    for index, piece in enumerate(PIECES.split(html)):
        if index % 2 == 0:
            out.append(unescape(piece))
            continue
        name = piece.strip("</> \n").split()[0].lower() if piece.strip("</> \n") else ""
        if piece.startswith("</"):
            opened = next((n for tag, n in reversed(open_tags) if tag == name), None)
            if opened is None:  # a stray closing tag: keep it as a placeholder of its own
                number += 1
                opened = str(number)
            else:
                open_tags.remove((name, opened))
            token = f"</{opened}>"
        elif piece.endswith("/>") or name in VOID_TAGS:
            number += 1
            token = f"<{number}/>"
        else:
            number += 1
            open_tags.append((name, str(number)))
            token = f"<{number}>"
        protected.tags[token] = piece
        out.append(token)
    protected.text = "".join(out)
    return protected


def check_nesting(tokens: list[str]) -> None:
    stack: list[str] = []
    for token in tokens:
        number = token.strip("</>")
        if token.endswith("/>"):
            continue
        if token.startswith("</"):
            if not stack or stack[-1] != number:
                raise BrokenMarkup(f"placeholder {token} closes out of order")
            stack.pop()
        else:
            stack.append(number)
    if stack:
        raise BrokenMarkup(f"placeholder <{stack[-1]}> is never closed")


def describe(missing: list[str], extra: list[str]) -> str:
    problems = []
    if missing:
        problems.append("missing " + ", ".join(missing))
    if extra:
        problems.append("unexpected " + ", ".join(extra))
    return "; ".join(problems)


def restored(protected: Protected, answer: str) -> str:
    """The answer as inline HTML checked like any translator's (BrokenMarkup if not)."""
    html = protected.restore(answer)
    problem = markup_problem(protected.source, html)
    if problem:
        raise BrokenMarkup(problem)
    return html


def plain_text(html: str) -> str:
    """What a reader sees of an inline-HTML text (for the output checks)."""
    return unescape(TAG.sub(" ", html)).strip()
