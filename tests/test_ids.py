"""The one id parser: ASCII digits within the column's range, or None."""

from __future__ import annotations

import pytest
from wagtail.models import Page

from wagtail_bulk_translate.ids import MAX_ID, IdConverter, parse_id, parse_pk
from wagtail_bulk_translate.models import GlossaryTerm


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", 0),
        ("17", 17),
        ("0017", 17),
        (str(MAX_ID), MAX_ID),
        (42, 42),
        (str(MAX_ID + 1), None),
        ("9" * 5000, None),  # longer than int() converts by default: refused before it
        ("", None),
        ("²", None),
        ("٣", None),
        ("+1", None),
        ("-1", None),
        (" 1", None),
        ("1_000", None),
        ("1.0", None),
        (-1, None),
        (True, None),
        (None, None),
        (1.0, None),
    ],
)
def test_parse_id_takes_ascii_digits_in_range_only(value, expected):
    assert parse_id(value) == expected


def test_the_bound_can_be_lowered():
    assert parse_id("2147483648", 2_147_483_647) is None
    assert parse_id("2147483647", 2_147_483_647) == 2_147_483_647


@pytest.mark.django_db
def test_a_key_is_checked_against_its_models_column():
    assert parse_pk(GlossaryTerm, "12") == 12
    assert parse_pk(GlossaryTerm, str(2**64)) is None
    assert parse_pk(Page, "²") is None


def test_the_path_converter_refuses_what_parse_id_refuses():
    converter = IdConverter()
    assert converter.to_python("12") == 12
    with pytest.raises(ValueError):
        converter.to_python(str(2**64))
