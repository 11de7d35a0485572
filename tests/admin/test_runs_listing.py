"""The runs listing as editors read it: cancelled units, canaries, who started a run, live rows."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from tests.admin.conftest import make_run

INDEX = "wagtail_bulk_translate:index"

pytestmark = pytest.mark.django_db


def row_of(html: str, run) -> str:
    start = html.index(reverse("wagtail_bulk_translate:inspect", args=[run.pk]) + '"')
    row_start = html.rindex("<tr", 0, start)
    return html[row_start : html.index("</tr>", start)]


def cancelled_run():
    run = make_run(units=10, status="cancelled", finished_at=timezone.now())
    run.units.filter(status__in=["pending", "running"]).update(
        status="cancelled", error_code="cancelled"
    )
    return run


def test_a_cancelled_run_shows_its_cancelled_units(admin_client):
    run = cancelled_run()  # 2 succeeded, 2 failed, 2 skipped, 4 cancelled
    row = row_of(admin_client.get(reverse(INDEX)).content.decode(), run)
    assert 'aria-valuenow="60"' in row  # not 100 %: four units never ran
    text = " ".join(strip_tags(row).split())
    assert "6 / 10 done" in text and "4 cancelled" in text
    data = admin_client.get(reverse("wagtail_bulk_translate:status", args=[run.pk])).json()
    assert data["percent"] == 60 and data["cancelled"] == 4 and data["done"] == 6


def test_a_run_without_cancelled_units_does_not_mention_them(admin_client):
    run = make_run(units=3, status="succeeded", finished_at=timezone.now())
    row = row_of(admin_client.get(reverse(INDEX)).content.decode(), run)
    assert 'aria-valuenow="100"' in row
    assert 'data-bt-if-count="cancelled" hidden' in row


def test_not_a_canary_is_not_a_red_cross(admin_client):
    full, canary = make_run(), make_run(canary_size=5)
    html = admin_client.get(reverse(INDEX)).content.decode()
    assert "icon-cross" not in row_of(html, full) and "icon-check" not in row_of(html, canary)
    assert "canary of 5" in row_of(html, canary)
    assert "canary of" not in row_of(html, full)


def test_a_run_from_the_command_line_says_so(admin_client, superuser):
    mine, script = make_run(user=superuser), make_run(user=None)
    html = admin_client.get(reverse(INDEX)).content.decode()
    assert "data-bt-started-by-command" in row_of(html, script)
    assert "Command line" in row_of(html, script)
    assert "Command line" not in row_of(html, mine) and "root" in row_of(html, mine)
    page = admin_client.get(reverse("wagtail_bulk_translate:inspect", args=[script.pk]))
    assert "Command line" in page.content.decode()


def test_active_rows_follow_their_runs_live(admin_client):
    active = make_run(units=4)
    done = make_run(units=3, status="succeeded", finished_at=timezone.now())
    html = admin_client.get(reverse(INDEX)).content.decode()
    row = row_of(html, active)
    assert 'data-controller="bt-run-status"' in row
    status_url = reverse("wagtail_bulk_translate:status", args=[active.pk])
    assert f'data-bt-run-status-url-value="{status_url}"' in row
    assert "data-bt-status" in row and "data-bt-count=" in row and "data-bt-progress" in row
    assert 'data-controller="bt-run-status"' not in row_of(html, done)
    assert "wagtail_bulk_translate/js/run-status.js" in html


def test_queries_do_not_grow_with_active_runs(admin_client, count_queries):
    for _ in range(2):
        make_run(units=10)
        cancelled_run()
    with count_queries() as few:
        admin_client.get(reverse(INDEX))
    for _ in range(8):
        make_run(units=10)
        make_run(units=10, user=None, canary_size=3)
    with count_queries() as many:
        assert admin_client.get(reverse(INDEX)).status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries)


def test_units_still_running_in_a_cancelled_run_are_shown(admin_client):
    run = make_run(units=10, status="cancelled", finished_at=timezone.now())
    run.units.filter(status="pending").update(status="cancelled", error_code="cancelled")
    row = row_of(admin_client.get(reverse(INDEX)).content.decode(), run)
    text = " ".join(strip_tags(row).split())
    assert "2 cancelled" in text and "2 running" in text  # they finish after the cancel


def test_one_spend_column_characters_tokens_or_a_dash(admin_client):
    import uuid

    from wagtail_bulk_translate.models import SpentRequest

    deepl_like = make_run(units=3, status="succeeded", finished_at=timezone.now())
    llm = make_run(units=2, status="succeeded", finished_at=timezone.now())
    SpentRequest.objects.create(
        run=llm,
        locale=llm.target_locales.first(),
        request=uuid.uuid4(),
        prompt_tokens=1200,
        completion_tokens=300,
        cost="0.0123",
    )
    pseudo = make_run(units=2, status="succeeded", finished_at=timezone.now())
    pseudo.units.update(billed_characters=0)
    html = admin_client.get(reverse(INDEX)).content.decode()
    thead = html[html.rindex("<thead") : html.rindex("</thead>")]
    headers = " ".join(strip_tags(thead).split())
    assert "Spend" in headers
    assert "Characters billed" not in headers and "Tokens and cost" not in headers
    assert "30 characters" in strip_tags(row_of(html, deepl_like))
    assert "1,500 tokens, 0.0123" in strip_tags(row_of(html, llm))
    pseudo_cells = [strip_tags("<td" + c).strip() for c in row_of(html, pseudo).split("<td")]
    assert "—" in pseudo_cells and "character" not in strip_tags(row_of(html, pseudo))


def test_run_titles_do_not_wrap(admin_client):
    run = make_run(units=1)
    row = row_of(admin_client.get(reverse(INDEX)).content.decode(), run)
    assert "data-bt-run-title" in row and "white-space: nowrap" in row


def test_held_units_and_skips_behind_a_parent_are_named_apart(admin_client):
    run = make_run(units=6, status="succeeded", finished_at=timezone.now())
    succeeded = list(run.units.filter(status="succeeded").values_list("pk", flat=True))
    run.units.filter(pk=succeeded[0]).update(error_code="held_for_review")
    run.units.filter(status="skipped").update(error_code="parent_not_translated")
    row = " ".join(
        strip_tags(row_of(admin_client.get(reverse(INDEX)).content.decode(), run)).split()
    )
    assert "1 held for review" in row
    skipped = run.units.filter(status="skipped").count()
    assert f"{skipped} skipped behind a parent that could not be written" in row
