"""A plugin task's PostgreSQL session ends transactions left waiting on a vanished worker.

(``tests/e2e/test_worker_cut_off.py`` shows why: a worker cut off mid-transaction held its
units' locks, and no other worker could take its claim over.) Needs a real session outside a
test transaction: ``transaction=True``.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from wagtail_bulk_translate.engine.idle_transactions import idle_transactions_bounded

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def session_timeout() -> str | None:
    """The session's idle-in-transaction timeout on PostgreSQL; None elsewhere (no such thing)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SHOW idle_in_transaction_session_timeout")
        return cursor.fetchone()[0]


@pytest.mark.parametrize(("lease", "bound"), [(300, "5min"), (4, "30s")])
def test_within_a_task_idle_transactions_end_after_a_lease_and_never_sooner_than_30s(
    settings, lease, bound
):
    settings.WAGTAIL_BULK_TRANSLATE = {**settings.WAGTAIL_BULK_TRANSLATE, "LEASE_SECONDS": lease}
    before = session_timeout()

    with idle_transactions_bounded():
        within = session_timeout()

    expected = bound if connection.vendor == "postgresql" else None
    assert within == expected
    assert session_timeout() == before  # the site's own work on this connection keeps its own


def test_inside_a_transaction_the_session_is_left_alone(settings):
    with connection.cursor() as cursor:  # opens the connection outside any transaction
        cursor.execute("SELECT 1")
    before = session_timeout()

    with transaction.atomic(), idle_transactions_bounded():
        assert session_timeout() == before
