"""Ids typed by people (URLs, query strings, forms, command lines): one strict parser.

An id is ASCII digits only (``str.isdigit`` accepts ``²`` and ``int`` accepts ``٣``, ``+1`` and
``1_000``) and within what its column holds: above it SQLite raises ``OverflowError`` and
PostgreSQL an error, where the caller must answer "no such object" (404, exit 2) instead.
"""

from __future__ import annotations

from typing import Any

from django.db import connection, models

# The plugin's own tables use BigAutoField: a signed 64-bit column on every database.
MAX_ID = 2**63 - 1
# Longer strings cannot be in range; refusing them first keeps int() cheap on hostile input.
MAX_ID_DIGITS = 19


def parse_id(value: object, high: int = MAX_ID) -> int | None:
    """``value`` as an id from 0 to ``high``, or None when it is not one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 <= value <= high else None
    if not isinstance(value, str):
        return None
    if not (value.isascii() and value.isdigit()):
        return None
    digits = value.lstrip("0") or "0"
    if len(digits) > MAX_ID_DIGITS:
        return None
    number = int(digits)
    return number if number <= high else None


def integer_pk_high(model: type[models.Model]) -> int | None:
    """The largest value ``model``'s integer primary key column holds; None for other keys."""
    bounds = connection.ops.integer_field_ranges.get(model._meta.pk.get_internal_type())
    if bounds is None:
        return None
    return min(bounds[1], MAX_ID)


def parse_pk(model: type[models.Model], value: Any) -> Any:
    """``value`` as a key of ``model``: a strict id for integer keys, else the field's own
    conversion; None when it cannot be one."""
    high = integer_pk_high(model)
    if high is not None:
        return parse_id(value, high)
    try:
        return model._meta.pk.to_python(value)
    except Exception:  # ValidationError, ValueError, TypeError: whatever the field raises
        return None


class IdConverter:
    """The ``<id:pk>`` path converter: a strict id, else the URL does not match (404)."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        number = parse_id(value)
        if number is None:
            raise ValueError(f"not an id: {value!r}")
        return number

    def to_url(self, value: Any) -> str:
        return str(value)
