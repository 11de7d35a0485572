"""Words of the run actions: a refusal speaks of the action refused, the audit log shows each
run as it is after the action, every started run is in it, a canary promoted twice names the
full run."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from wagtail.models import ModelLogEntry

from tests.admin.conftest import make_run
from wagtail_bulk_translate.models import Run, UnitStatus

pytestmark = pytest.mark.django_db


def url(name: str, run) -> str:
    return reverse(f"wagtail_bulk_translate:{name}", args=[run.pk])


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"]) if response.context else ""


@pytest.mark.parametrize(("action", "status"), [("revert", "succeeded"), ("retry", "partial")])
def test_an_action_refused_for_lack_of_edit_rights_speaks_of_that_action(
    editor_client, site_tree, task_queue, action, status
):
    run = make_run(units=4, status=status, finished_at=timezone.now())
    run.scope = {"pages": [{"id": site_tree["home"].pk, "descendants": True}]}
    run.save()
    run.units.filter(status__in=UnitStatus.in_flight).update(status="skipped")

    text = messages_of(editor_client.post(url(action, run), follow=True))

    assert f"you cannot {action} this run" in text
    assert "“Secret”" in text
    assert "selection" not in text


def test_the_audit_log_label_shows_the_run_after_the_action(admin_client):
    run = make_run(units=10)

    admin_client.post(url("cancel", run))

    [entry] = ModelLogEntry.objects.filter(action="wagtail_bulk_translate.run.cancelled")
    assert entry.label == f"Run #{run.pk} (Cancelled)"


def test_a_run_started_from_the_command_line_is_in_the_audit_log(site_tree, task_queue):
    call_command("bulk_translate", "start", "--page", str(site_tree["news"].pk), "--locales", "fr")

    run = Run.objects.get()
    [entry] = ModelLogEntry.objects.filter(action="wagtail_bulk_translate.run.started")
    assert entry.object_id == str(run.pk) and entry.user is None
    assert entry.data["targets"] == ["fr"] and entry.data["mode"] == "changed"
