"""Benchmark 3: characters billed against the floor, and requests against ⌈strings / 50⌉.

The floor is what must be paid for: every distinct source string of the pages (wagtail-localize's
own extractor lists them) that needs translating — not a slug (derived from the translated
title by the default slug policy), not a code or a number (the plugin's non-prose rule) — and
has no translation in the target locale yet, once per locale. Ours and the per-object baseline
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
    ours_floor = floor(ours_pages, config.targets)
    ours = tally_of(lambda: bulk_translate(ours_pages, config.targets))
    their_floor = floor(their_pages, config.targets)
    theirs = tally_of(lambda: per_object_baseline(their_pages, config.targets))
    ours_ratio = ours.total_characters() / characters(ours_floor)
    their_ratio = theirs.total_characters() / characters(their_floor)
    floor_requests = sum(requests_for(len(strings)) for strings in ours_floor.values())
    their_floor_requests = sum(requests_for(len(strings)) for strings in their_floor.values())
    sent = set().union(*ours.distinct.values())
    beyond = sorted(sent - set().union(*ours_floor.values()))
    unsent = sorted(set().union(*ours_floor.values()) - sent)
    twice = ours.total_characters() - sum(sum(map(len, s)) for s in ours.distinct.values())
    locales = len(config.targets)
    return [
        Result(
            "3 billed characters",
            "characters / floor",
            round(ours_ratio, 3),
            round(their_ratio, 3),
            f"ours = {TARGET:.2f}",
            round(ours_ratio, 2) == TARGET,
            f"{ours.total_characters()} characters for {len(ours_pages)} pages x {locales} "
            f"locales, floor {characters(ours_floor)}; baseline: {theirs.total_characters()}, "
            f"floor {characters(their_floor)}; ours sent {twice} characters twice and "
            f"{len(beyond)} texts beyond the floor{example(beyond)}; "
            f"{len(unsent)} strings of the floor not sent{example(unsent)}",
        ),
        Result(
            "3 requests",
            "requests / sum over locales of ceil(strings / 50)",
            round(ours.total_requests() / floor_requests, 2),
            round(theirs.total_requests() / their_floor_requests, 2),
            "",
            None,
            f"{ours.total_requests()} requests against a floor of {floor_requests}",
        ),
    ]


def floor(pages: list[Any], targets: list[str]) -> dict[str, set[str]]:
    """Per target locale, the distinct strings of the pages with no translation in it yet."""
    from wagtail_localize.models import StringTranslation

    strings = distinct_strings(pages)
    known = StringTranslation.objects.filter(
        translation_of__locale__language_code="en", translation_of__data__in=strings
    )
    return {
        code: strings
        - set(
            known.filter(locale__language_code=code).values_list("translation_of__data", flat=True)
        )
        for code in targets
    }


def example(texts: list[str]) -> str:
    return f" (e.g. {texts[0][:60]!r})" if texts else ""


def characters(floor: dict[str, set[str]]) -> int:
    return sum(len(text) for strings in floor.values() for text in strings)


def tally_of(action: Any) -> Tally:
    CountingTranslator.reset()
    action()
    return CountingTranslator.tally


def distinct_strings(pages: list[Any]) -> set[str]:
    """The distinct strings wagtail-localize's extractor finds in the pages that need
    translating."""
    from wagtail_localize.segments import StringSegmentValue
    from wagtail_localize.segments.extract import extract_segments

    from wagtail_bulk_translate.engine.text_kinds import is_non_prose

    strings: set[str] = set()
    for page in pages:
        for segment in extract_segments(page.specific):
            if isinstance(segment, StringSegmentValue) and segment.path != "slug":
                strings.add(segment.string.data)
    return {text for text in strings if not is_non_prose(text)}
