"""Id arguments of ``manage.py bulk_translate``: the one strict id parser, as argparse types.

A bad id (``²``, ``-1``, a number no column holds) exits 2 with a sentence naming the range,
instead of reaching the database (SQLite raises ``OverflowError`` above 64 bits).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ...ids import MAX_ID, parse_id

# Wagtail's Page key is an AutoField: a 32-bit integer column on PostgreSQL and MySQL.
MAX_PAGE_ID = 2_147_483_647


def id_argument(name: str, high: int = MAX_ID) -> Callable[[str], int]:
    """An argparse type: an id from 1 to ``high`` in ASCII digits, else exit 2 saying so."""

    def parse(value: str) -> int:
        number = parse_id(value, high)
        if number is None or number < 1:
            raise argparse.ArgumentTypeError(
                f"{name} must be between 1 and {high} (digits 0-9 only), got {value!r}"
            )
        return number

    parse.__name__ = "id"
    return parse


RUN_ID = id_argument("a run id")
UNIT_ID = id_argument("a unit id")
PAGE_ID = id_argument("a page id", MAX_PAGE_ID)
