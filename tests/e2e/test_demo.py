"""``manage.py demo`` (what ``make demo`` runs), small: its real workers, a clean output."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import manage

pytestmark = pytest.mark.e2e


def test_demo_translates_the_site_and_prints_no_traceback(empty_site_env):
    result = manage(empty_site_env, "demo", "--pages", "24", "--canary", "4", timeout=600)
    output = result.stdout + result.stderr

    assert "Run #1 (canary): succeeded" in output
    assert "Run #2 (changed): succeeded" in output
    assert "Traceback" not in output, output
    assert "make serve" in output
