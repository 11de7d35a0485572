"""The run page, its JSON status endpoint and the canary review."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.admin.conftest import make_run
from wagtail_bulk_translate.models import Unit

pytestmark = pytest.mark.django_db


def page(run) -> str:
    return reverse("wagtail_bulk_translate:inspect", args=[run.pk])


def status(run) -> str:
    return reverse("wagtail_bulk_translate:status", args=[run.pk])


def review(run) -> str:
    return reverse("wagtail_bulk_translate:canary_review", args=[run.pk])


@pytest.mark.parametrize("url", [page, status, review])
def test_anonymous_is_sent_to_login(client, url):
    run = make_run()
    response = client.get(url(run))
    assert response.status_code == 302 and "/login/" in response["Location"]


@pytest.mark.parametrize("url", [page, status, review])
def test_user_without_permission_gets_403(outsider_client, url):
    assert outsider_client.get(url(make_run())).status_code == 403


@pytest.mark.parametrize("name", ["inspect", "status", "canary_review"])
def test_unknown_run_is_404(admin_client, name):
    # The sandbox's LocaleMiddleware sends a 404 to its language-prefixed URL first.
    url = reverse(f"wagtail_bulk_translate:{name}", args=[999])
    assert admin_client.get(url, follow=True).status_code == 404


def test_status_is_get_only(admin_client):
    assert admin_client.post(status(make_run())).status_code == 405


def test_run_page_shows_progress_breakdowns_and_failures(admin_client):
    run = make_run(units=10)
    html = admin_client.get(page(run)).content.decode()
    assert 'data-controller="bt-run-status"' in html
    assert 'aria-valuenow="60"' in html
    assert 'data-bt-count="failed">2<' in html
    assert 'data-bt-breakdown="by_locale"' in html and 'data-bt-breakdown="by_model"' in html
    assert html.count("data-bt-failure=") == 2
    assert "The translator failed" in html  # the editor-readable reason of translator_error
    assert "run-status.js" in html


def test_status_json(admin_client):
    run = make_run(units=10, estimated_characters=500)
    data = admin_client.get(status(run)).json()
    assert data["status"] == "running" and data["percent"] == 60
    assert data["units"]["failed"] == 2 and data["total"] == 10
    assert data["by_locale"]["fr"]["succeeded"] + data["by_locale"]["de"]["succeeded"] == 2
    assert data["by_model"]["wagtailcore.Page"]["pending"] == 2
    assert data["billed_characters"] == 100 and data["estimated_characters"] == 500
    assert set(data["actions"]) == {"cancel", "pause", "retry"}
    assert data["errors"] == {"translator_error": 2}


def test_failures_are_paginated(admin_client):
    run = make_run(units=300)  # 60 failed
    first = admin_client.get(page(run)).content.decode()
    assert first.count("data-bt-failure=") == 25 and "Page 1 of 3" in first
    last = admin_client.get(page(run) + "?failures=3").content.decode()
    assert last.count("data-bt-failure=") == 10


def test_messages_are_escaped_and_secrets_never_shown(admin_client):
    run = make_run(units=5, translator_options={"AUTH_KEY": "sekrit-key", "FORMALITY": "less"})
    Unit.objects.filter(run=run, status="failed").update(
        error_message="<script>alert('x')</script>"
    )
    html = admin_client.get(page(run)).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "sekrit-key" not in html
    assert "sekrit-key" not in admin_client.get(status(run)).content.decode()


def test_no_worker_notice(admin_client):
    run = make_run(units=10, started_at=timezone.now() - timedelta(hours=1))
    run.heartbeat_at = timezone.now() - timedelta(hours=1)
    run.save()
    html = admin_client.get(page(run)).content.decode()
    assert "data-bt-no-worker >" in html or "data-bt-no-worker\n" in html
    assert "db_worker --queue-name bulk_translate" in html
    assert admin_client.get(status(run)).json()["no_worker"] is True
    run.heartbeat_at = timezone.now()
    run.save()
    assert admin_client.get(status(run)).json()["no_worker"] is False


def test_a_long_request_is_not_taken_for_a_missing_worker(admin_client):
    """A worker deep in one long step (a language model answering for minutes) holds a live
    lease and has not claimed for a while: that is not "no worker"; once its lease has
    expired with nobody taking over, it is."""
    long_ago = timezone.now() - timedelta(hours=1)
    run = make_run(units=10, started_at=long_ago, heartbeat_at=long_ago)
    running = Unit.objects.filter(run=run, status="running")
    running.update(lease_expires_at=timezone.now() + timedelta(minutes=5))
    assert admin_client.get(status(run)).json()["no_worker"] is False

    running.update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert admin_client.get(status(run)).json()["no_worker"] is True


def test_eta_once_work_is_done(admin_client):
    run = make_run(units=10, started_at=timezone.now() - timedelta(seconds=60))
    data = admin_client.get(status(run)).json()
    assert data["eta_seconds"] == 40  # 6 done in 60 s, 4 to go
    assert data["eta_label"] == "about 40 seconds"


@pytest.mark.parametrize("url", [page, status])
def test_queries_do_not_grow_with_units(admin_client, count_queries, url):
    small = make_run(units=100)
    large = make_run(units=10_000)
    admin_client.get(url(small))  # warm the content type cache
    with count_queries() as few:
        admin_client.get(url(small))
    with count_queries() as many:
        assert admin_client.get(url(large)).status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries)


def test_canary_review_shows_source_and_translation(admin_client, site_tree, start, task_queue):
    from wagtail_bulk_translate.api import canary_samples

    run = start(
        scope={"pages": [{"id": site_tree["news"].pk, "descendants": True}]},
        source_locale="en",
        target_locales=["fr"],
        canary_size=2,
    )
    task_queue.drain()
    samples = canary_samples(run.pk)
    assert samples and all(s.strings for s in samples)
    translated = [s for sample in samples for s in sample.strings if s.translation]
    assert translated and all(s.translation != s.source for s in translated)
    html = admin_client.get(review(run)).content.decode()
    assert html.count("data-bt-sample=") == len(samples)
    assert "data-bt-edit-target" in html and "data-bt-preview" in html
    assert 'data-bt-action="promote"' in html
    assert json.dumps(translated[0].translation)[1:-1].split(" ")[0] in html


def test_a_run_being_reverted_keeps_its_page_polling_until_the_revert_ends(admin_client):
    run = make_run(units=4, status="succeeded", finished_at=timezone.now())
    run.reverted_at = timezone.now()
    run.save()
    data = admin_client.get(status(run)).json()
    assert data["is_finished"] is False and data["status_label"] == "Reverting…"
    html = admin_client.get(page(run)).content.decode()
    assert 'data-bt-run-status-finished-value="false"' in html and "Reverting…" in html

    run.status = "reverted"
    run.save()
    data = admin_client.get(status(run)).json()
    assert data["is_finished"] is True and data["status_label"] == "Reverted"
    html = admin_client.get(page(run)).content.decode()
    assert 'data-bt-run-status-finished-value="true"' in html


@pytest.mark.parametrize(
    ("seconds", "label"),
    [
        (0, "about 1 second"),
        (1, "about 1 second"),
        (2, "about 2 seconds"),
        (89, "about 89 seconds"),
        (90, "about 2 minutes"),
        (60 * 60, "about 60 minutes"),
        (90 * 60, "about 1.5 hours"),
        (2 * 3600, "about 2 hours"),
        (None, ""),
    ],
)
def test_time_left_reads_in_words(seconds, label):
    from wagtail_bulk_translate.admin.views.run_page import duration_label

    assert duration_label(seconds) == label


def test_the_run_page_loads_its_final_report_in_place(admin_client):
    run = make_run(units=4)
    html = admin_client.get(page(run)).content.decode()
    assert f'data-bt-run-status-report-value="{page(run)}"' in html
    assert "data-bt-final-report" not in html
    run.status, run.finished_at = "partial", timezone.now()
    run.save()
    assert "data-bt-final-report" in admin_client.get(page(run)).content.decode()
