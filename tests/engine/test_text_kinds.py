"""Non-prose detection: what runs copy unchanged instead of paying to translate."""

from __future__ import annotations

import pytest

from wagtail_bulk_translate.engine.text_kinds import is_non_prose

NON_PROSE = [
    # Empty, blank, no letters.
    "",
    "   ",
    "\n",
    "—",
    "!!!",
    # E-mail addresses and URLs.
    "hello@example.com",
    "first.last+news@mail.example.co.uk",
    "mailto:press@example.org",
    "https://example.com/about?x=1",
    "http://example.com",
    "www.example.com",
    # Phone numbers.
    "+33 1 23 45 67 89",
    "(555) 123-4567",
    "+44 (0)20 7946 0958",
    # Numbers, amounts, percentages, dates, times.
    "42",
    "3.14",
    "1,000",
    "12%",
    "€1,299.00",
    "EUR 1,000",
    "2024-05-01",
    "12/05/2024",
    "09:30\u201317:00",  # en dash
    # Coordinates.
    "48.8566, 2.3522",
    "48°51\u2032N 2°21\u2032E",  # primes
    "48.8566° N, 2.3522° E",
    # Codes and identifiers.
    "SKU-2024-AB17",
    "ISBN 978-3-16-148410-0",
    "AB-1234",
    "FR76 3000 6000 0112 3456 7890 189",
    "A4",
    "#ff00aa",
    "#FFF",
    "1920 x 1080",
    # Markup around non-prose: decided on the text content.
    '<a id="a1">hello@example.com</a>',
    "<b>42</b>",
    "&lt;&gt;",
]

PROSE = [
    # Single ordinary words are prose, however short.
    "Paris",
    "OK",
    "FAQ",
    "Contact us",
    "Read more",
    "our-mission",
    "Wi-Fi",
    # Prose with numbers in it.
    "Open 9 to 5 every day",
    "Call us at +33 1 23 45 67 89 today",
    "Tel: +33 1 23 45 67 89",
    "Room 101",
    "1 May 2024",
    "Founded in 1998",
    "Top 10 museums",
    "1st floor",
    "2nd",
    "10am\u20136pm",  # en dash
    "Open from 10am",
    "12 kg",
    # All-caps prose is not a code label.
    "BLACK FRIDAY 2024",
    "SUMMER 2024",
    "NEW SALE 2024",
    # E-mails and URLs inside a sentence.
    "Write to hello@example.com",
    "Visit www.example.com for details",
    # Links and formatting with prose.
    'Read <a id="a1">more</a>.',
    '<a id="a1">Our annual report</a>',
    "<b>Opening</b> hours",
    "Fish &amp; chips",
    # Non-Latin scripts.
    "你好",
    "Привет",
]


@pytest.mark.parametrize("text", NON_PROSE)
def test_non_prose_is_detected(text):
    assert is_non_prose(text)


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_translated(text):
    assert not is_non_prose(text)
