"""The dashboard panel: live progress, the no-worker warning, the last run's date."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.admin.conftest import make_run

pytestmark = pytest.mark.django_db


def panel(client) -> str:
    html = client.get(reverse("wagtailadmin_home")).content.decode()
    return html[html.index("data-bt-dashboard-panel") :]


def test_active_runs_follow_their_progress_live(admin_client):
    run = make_run(units=10)
    html = admin_client.get(reverse("wagtailadmin_home")).content.decode()
    row = html[html.index(f'data-bt-dashboard-run="{run.pk}"') :]
    row = row[: row.index("</tr>")]
    assert 'data-controller="bt-run-status"' in row
    status_url = reverse("wagtail_bulk_translate:status", args=[run.pk])
    assert f'data-bt-run-status-url-value="{status_url}"' in row
    assert "data-bt-progress-bar" in row and "data-bt-status" in row
    assert "wagtail_bulk_translate/js/run-status.js" in html


def test_a_run_no_worker_picks_up_shows_the_warning(admin_client):
    waiting = make_run(units=10, status="pending")
    waiting.created_at = timezone.now() - timedelta(minutes=5)
    waiting.save()
    html = panel(admin_client)
    assert "data-bt-no-worker >" in html or "data-bt-no-worker\n" in html
    assert "manage.py db_worker --queue-name bulk_translate" in html


def test_a_run_being_worked_on_hides_the_warning(admin_client):
    make_run(units=10, status="running", heartbeat_at=timezone.now())
    assert "data-bt-no-worker hidden" in panel(admin_client)


def test_the_last_run_date_is_not_wrapped_in_parentheses(admin_client):
    make_run(units=3, status="succeeded", finished_at=timezone.now())
    html = panel(admin_client)
    last = html[html.index("data-bt-dashboard-last") :]
    last = last[: last.index("</table>")]
    assert "w-human-readable-date" in last
    assert "(<button" not in last.replace(" ", "").replace("\n", "")
