"""Actions on a run: permissions, methods, states, effects through the API, audit log."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone
from wagtail.models import ModelLogEntry

from tests.admin.conftest import make_run
from wagtail_bulk_translate.models import Run, UnitStatus

pytestmark = pytest.mark.django_db

ACTIONS = ["cancel", "pause", "resume", "retry", "revert", "promote"]


def url(name: str, run) -> str:
    return reverse(f"wagtail_bulk_translate:{name}", args=[run.pk])


def logged(action: str) -> list[ModelLogEntry]:
    return list(ModelLogEntry.objects.filter(action=f"wagtail_bulk_translate.run.{action}"))


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"]) if response.context else ""


@pytest.mark.parametrize("action", ACTIONS)
def test_anonymous_is_sent_to_login(client, action):
    response = client.post(url(action, make_run()))
    assert response.status_code == 302 and "/login/" in response["Location"]


@pytest.mark.parametrize("action", ACTIONS)
def test_user_without_permission_gets_403(outsider_client, action):
    run = make_run(units=10)
    assert outsider_client.post(url(action, run)).status_code == 403
    assert outsider_client.get(url(action, run)).status_code == 403
    run.refresh_from_db()
    assert run.status == "running" and not ModelLogEntry.objects.exists()


@pytest.mark.parametrize("action", ["pause", "resume", "retry", "promote"])
def test_get_is_not_allowed_on_post_only_actions(admin_client, action):
    assert admin_client.get(url(action, make_run())).status_code == 405


def test_cancel_asks_for_confirmation_then_cancels(admin_client, superuser):
    run = make_run(units=10)  # 2 pending, 2 running
    confirm = admin_client.get(url("cancel", run))
    html = confirm.content.decode()
    assert confirm.status_code == 200 and 'data-bt-confirm="cancel"' in html
    assert "2 units waiting for a worker will not be translated" in html
    run.refresh_from_db()
    assert run.status == "running"
    response = admin_client.post(url("cancel", run), follow=True)
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert run.units.filter(status=UnitStatus.CANCELLED).count() == 2
    assert "cancelled" in messages_of(response)
    [entry] = logged("cancelled")
    assert entry.user == superuser and entry.data == {"units_cancelled": 2}


def test_pause_then_resume(admin_client, task_queue):
    run = make_run(units=10)
    admin_client.post(url("pause", run))
    run.refresh_from_db()
    assert run.status == "paused" and "Paused by root" in run.error_message
    admin_client.post(url("resume", run))
    run.refresh_from_db()
    assert run.status == "running"
    assert len(logged("paused")) == 1 and len(logged("resumed")) == 1


@pytest.mark.parametrize(
    ("status", "action"),
    [
        ("succeeded", "pause"),
        ("succeeded", "cancel"),
        ("running", "resume"),
        ("running", "revert"),
        ("running", "promote"),
        ("cancelled", "retry"),
        ("succeeded", "promote"),  # not a canary
    ],
)
def test_actions_refused_in_states_where_they_make_no_sense(admin_client, status, action):
    run = make_run(units=10, status=status)
    response = admin_client.post(url(action, run), follow=True)
    assert "cannot be" in messages_of(response)
    run.refresh_from_db()
    assert run.status == status
    assert Run.objects.count() == 1 and not ModelLogEntry.objects.exists()
    html = admin_client.get(url("inspect", run)).content.decode()
    assert f'data-bt-action="{action}" hidden' in html or f'data-bt-action="{action}"\n' not in html


def test_retry_with_filters(admin_client, task_queue):
    run = make_run(units=20, status="partial")  # 4 failed: 2 fr, 2 de
    response = admin_client.post(url("retry", run), {"locales": ["fr"]}, follow=True)
    assert "2 failed units queued again" in messages_of(response)
    assert run.units.filter(status=UnitStatus.FAILED).count() == 2
    run.refresh_from_db()
    assert run.status == "running"
    [entry] = logged("retried")
    assert entry.data["locales"] == ["fr"] and entry.data["units_queued"] == 2


def test_retry_with_unknown_filter_is_refused(admin_client, task_queue):
    run = make_run(units=20, status="partial")
    response = admin_client.post(url("retry", run), {"error_codes": ["nonsense"]}, follow=True)
    assert "match no failed unit" in messages_of(response)
    assert run.units.filter(status=UnitStatus.FAILED).count() == 4


def test_canary_promote_and_revert(
    admin_client, superuser, site_tree, start, task_queue, django_capture_on_commit_callbacks
):
    canary = start(
        scope={"pages": [{"id": site_tree["news"].pk, "descendants": True}]},
        source_locale="en",
        target_locales=["fr"],
        canary_size=2,
        user=superuser,
    )
    task_queue.drain()
    canary.refresh_from_db()
    assert canary.status == "succeeded"
    assert 'data-bt-action="promote" >' in admin_client.get(url("inspect", canary)).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url("promote", canary))
    full = Run.objects.get(promoted_from=canary)
    assert response["Location"] == url("inspect", full)
    assert logged("promoted")[0].data == {"full_run": full.pk}
    task_queue.drain()
    full.refresh_from_db()
    assert full.status == "succeeded"
    # A canary is promoted once.
    again = admin_client.post(url("promote", canary), follow=True)
    text = messages_of(again)
    assert f"was already promoted to run #{full.pk}." in text and Run.objects.count() == 2
    assert f'href="/admin/bulk-translate/{full.pk}/"' in text

    confirm = admin_client.get(url("revert", full)).content.decode()
    assert 'data-bt-confirm="revert"' in confirm and "will be <strong>deleted</strong>" in confirm
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(url("revert", full))
    task_queue.drain()
    full.refresh_from_db()
    assert full.status == "reverted"
    assert len(logged("reverted")) == 1
    html = admin_client.get(url("inspect", full)).content.decode()
    assert "data-bt-revert-summary" in html


def test_log_entries_appear_in_site_history(admin_client, editor_client, editor, task_queue):
    run = make_run(units=10, user=editor)
    editor_client.post(url("pause", run))
    history = editor_client.get(reverse("wagtailadmin_reports:site_history"))
    assert history.status_code == 200
    assert "Paused the bulk translation run" in history.content.decode()


def test_retry_after_a_configuration_stop(admin_client, task_queue):
    run = make_run(units=10, status="failed", error_code="auth_config", error_message="Bad key.")
    run.units.exclude(status="succeeded").update(status="cancelled", error_code="auth_config")
    html = admin_client.get(url("inspect", run)).content.decode()
    assert 'data-bt-action="retry" >' in html or 'data-bt-action="retry"\n' in html
    assert "Bad key." in html
    admin_client.post(url("retry", run))
    assert run.units.filter(status=UnitStatus.PENDING).count() == 8


def test_promote_needs_edit_permission_on_the_whole_scope(editor_client, site_tree):
    canary = make_run(units=4, status="succeeded", canary_size=2)
    canary.scope = {"pages": [{"id": site_tree["home"].pk, "descendants": True}]}
    canary.save()
    response = editor_client.post(url("promote", canary), follow=True)
    assert "You cannot edit these pages" in messages_of(response)
    assert "“Secret”" in messages_of(response)
    assert Run.objects.count() == 1


@pytest.mark.parametrize(
    ("action", "status"), [("retry", "partial"), ("resume", "paused"), ("revert", "succeeded")]
)
def test_actions_that_write_content_need_edit_permission_on_the_whole_scope(
    editor_client, site_tree, task_queue, action, status
):
    run = make_run(units=10, status=status, finished_at=timezone.now())
    run.scope = {"pages": [{"id": site_tree["home"].pk, "descendants": True}]}
    run.save()
    if action == "revert":  # only a run with nothing in flight can be reverted
        run.units.filter(status__in=UnitStatus.in_flight).update(status="skipped")
    units_before = list(run.units.values_list("pk", "status"))
    response = editor_client.post(url(action, run), follow=True)
    assert "You cannot edit these pages" in messages_of(response)
    run.refresh_from_db()
    assert run.status == status and run.reverted_at is None
    assert list(run.units.values_list("pk", "status")) == units_before
    assert not logged(f"{action}d") and not logged(f"{action}ed")


def test_actions_that_only_stop_work_need_no_edit_permission(editor_client, site_tree):
    run = make_run(units=10, status="running")
    run.scope = {"pages": [{"id": site_tree["home"].pk, "descendants": True}]}
    run.save()
    editor_client.post(url("pause", run))
    run.refresh_from_db()
    assert run.status == "paused"
