"""The runs listing: access, columns, filters, empty state, constant queries."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from tests.admin.conftest import make_run

INDEX = "wagtail_bulk_translate:index"

pytestmark = pytest.mark.django_db


def test_anonymous_is_sent_to_login(client):
    response = client.get(reverse(INDEX))
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_user_without_permission_gets_403_and_no_menu(outsider_client):
    assert outsider_client.get(reverse(INDEX)).status_code == 403
    home = outsider_client.get(reverse("wagtailadmin_home"))
    assert reverse(INDEX) not in home.content.decode()


def test_editor_sees_menu_and_listing(editor_client, editor):
    make_run(units=10, user=editor)
    home = editor_client.get(reverse("wagtailadmin_home"))
    assert reverse(INDEX) in home.content.decode()
    response = editor_client.get(reverse(INDEX))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-bt-run-status="running"' in html
    assert "data-bt-progress" in html
    assert ">Spend<" in html or "Spend" in html
    assert "Characters billed" not in html and "Tokens and cost" not in html


def test_listing_shows_counts_progress_and_scope(admin_client):
    make_run(units=10)  # 2 of each status: 6 done of 10
    html = admin_client.get(reverse(INDEX)).content.decode()
    assert 'aria-valuenow="60"' in html
    html = strip_tags(html)  # the numbers sit in spans the live update rewrites
    assert "2 succeeded" in html and "2 failed" in html and "2 skipped" in html
    assert "6 / 10 done" in html
    assert "1 page tree and 1 snippet type: en → de, fr" in html
    assert "100 characters" in html  # 10 units x 10 billed characters, in the Spend column


def test_newest_first(admin_client):
    old, new = make_run(), make_run()
    runs = list(admin_client.get(reverse(INDEX)).context["object_list"])
    assert runs == [new, old]


def test_empty_state_explains_and_offers_new_run(admin_client):
    html = admin_client.get(reverse(INDEX)).content.decode()
    assert "data-bt-empty-state" in html
    assert reverse("wagtail_bulk_translate:add") in html


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("status=failed", {"failed"}),
        ("status=running&status=failed", {"running", "failed"}),
        ("mode=refresh", {"refresh"}),
        ("canary=true", {"canary"}),
    ],
)
def test_filters(admin_client, query, expected):
    make_run(status="running")
    make_run(status="failed", mode="refresh")
    make_run(status="succeeded", canary_size=5)
    runs = admin_client.get(reverse(INDEX) + "?" + query).context["object_list"]
    seen = set()
    for run in runs:
        seen |= {run.status, run.mode} | ({"canary"} if run.is_canary else set())
    assert expected <= seen
    assert len(runs) == (2 if "&" in query else 1)


def test_filter_by_user_and_date(admin_client, superuser, editor):
    mine = make_run(user=superuser)
    make_run(user=editor)
    day = mine.created_at.date().isoformat()
    url = f"{reverse(INDEX)}?created_by={superuser.pk}&created_at_after={day}"
    assert list(admin_client.get(url).context["object_list"]) == [mine]


def test_queries_do_not_grow_with_units(admin_client, count_queries):
    for _ in range(3):
        make_run(units=100)
    with count_queries() as small:
        admin_client.get(reverse(INDEX))
    for _ in range(3):
        make_run(units=10_000 // 3)
    with count_queries() as large:
        assert admin_client.get(reverse(INDEX)).status_code == 200
    assert len(large.captured_queries) == len(small.captured_queries)


@pytest.mark.parametrize(
    "query", ["status=bogus", "created_at_after=notadate", "created_by=abc", "p=999", "mode=x"]
)
def test_bad_filter_values_never_break_the_listing(admin_client, query):
    make_run()
    assert admin_client.get(f"{reverse(INDEX)}?{query}").status_code == 200
