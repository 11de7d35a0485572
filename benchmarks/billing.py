"""Benchmark 3: characters billed against the floor, and requests against ⌈strings / 50⌉.

The floor is what must be paid for: every distinct source string of the pages, once per target
locale (wagtail-localize's own extractor lists the strings). Ours and the per-object baseline
translate disjoint halves of ``sample`` pages into every target locale with the counting
translator; each is divided by its own half's floor.
"""

from __future__ import annotations

from typing import Any

from .harness import Config, Result, bulk_translate, content_pages, per_object_baseline
from .translators import CountingTranslator, Tally, requests_for

TARGET = 1.0


def run(config: Config) -> list[Result]:
    pages = content_pages(config.sample)
    ours_pages, their_pages = pages[0::2], pages[1::2]
    ours = tally_of(lambda: bulk_translate(ours_pages, config.targets))
    theirs = tally_of(lambda: per_object_baseline(their_pages, config.targets))
    ours_floor = distinct_strings(ours_pages)
    their_floor = distinct_strings(their_pages)
    locales = len(config.targets)
    ours_ratio = ours.total_characters() / (locales * sum(map(len, ours_floor)))
    their_ratio = theirs.total_characters() / (locales * sum(map(len, their_floor)))
    floor_requests = locales * requests_for(len(ours_floor))
    beyond = sorted(set().union(*ours.distinct.values()) - ours_floor)
    twice = ours.total_characters() - sum(sum(map(len, s)) for s in ours.distinct.values())
    return [
        Result(
            "3 billed characters",
            "characters / floor",
            round(ours_ratio, 3),
            round(their_ratio, 3),
            f"ours = {TARGET:.2f}",
            round(ours_ratio, 2) == TARGET,
            f"{ours.total_characters()} characters for {len(ours_pages)} pages x {locales} "
            f"locales; baseline: {theirs.total_characters()} for {len(their_pages)} pages; "
            f"ours sent {twice} characters twice and {len(beyond)} texts the extractor does "
            f"not list{': ' + repr(beyond[0][:60]) if beyond else ''}",
        ),
        Result(
            "3 requests",
            "requests / ⌈strings / 50⌉ per locale",
            round(ours.total_requests() / floor_requests, 2),
            round(theirs.total_requests() / (locales * requests_for(len(their_floor))), 2),
            "",
            None,
            f"{ours.total_requests()} requests against a floor of {floor_requests} "
            f"({len(ours_floor)} distinct strings per locale)",
        ),
    ]


def tally_of(action: Any) -> Tally:
    CountingTranslator.reset()
    action()
    return CountingTranslator.tally


def distinct_strings(pages: list[Any]) -> set[str]:
    """The distinct strings wagtail-localize's extractor finds in the pages."""
    from wagtail_localize.segments import StringSegmentValue
    from wagtail_localize.segments.extract import extract_segments

    strings: set[str] = set()
    for page in pages:
        for segment in extract_segments(page.specific):
            if isinstance(segment, StringSegmentValue):
                strings.add(segment.string.data)
    return strings
