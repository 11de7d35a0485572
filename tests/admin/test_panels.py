"""The dashboard panel and the permission's place in Wagtail's group editor."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from tests.admin.conftest import make_run

pytestmark = pytest.mark.django_db


def test_panel_shows_active_runs_and_last_outcome(admin_client):
    active = make_run(units=10)
    from django.utils import timezone

    finished = make_run(units=5, status="partial", finished_at=timezone.now())
    html = admin_client.get(reverse("wagtailadmin_home")).content.decode()
    assert "data-bt-dashboard-panel" in html
    assert f'data-bt-dashboard-run="{active.pk}"' in html
    assert 'data-bt-dashboard-last="partial"' in html
    assert reverse("wagtail_bulk_translate:inspect", args=[finished.pk]) in html


def test_panel_is_hidden_without_permission(outsider_client):
    make_run(units=10)
    html = outsider_client.get(reverse("wagtailadmin_home")).content.decode()
    assert "data-bt-dashboard-panel" not in html


def test_panel_queries_do_not_grow_with_units(admin_client, count_queries):
    make_run(units=100)
    with count_queries() as few:
        admin_client.get(reverse("wagtailadmin_home"))
    make_run(units=5_000)
    with count_queries() as many:
        admin_client.get(reverse("wagtailadmin_home"))
    assert len(many.captured_queries) <= len(few.captured_queries) + 1  # one more target list


def test_permission_is_assignable_in_the_group_editor(admin_client):
    group = Group.objects.create(name="Translators")
    html = admin_client.get(reverse("wagtailusers_groups:edit", args=[group.pk])).content.decode()
    assert "Can start and manage bulk translation runs" in html
