"""Setting and removing the admin's caps: audit-logged, and a raised cap resumes the runs it
paused at once."""

from __future__ import annotations

import pytest
from wagtail.models import ModelLogEntry

from tests.lookups import run_until_paused
from wagtail_bulk_translate.budgets.editing import remove_cap, set_cap
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import BudgetCap, RunStatus

pytestmark = pytest.mark.django_db


def test_setting_a_cap_twice_replaces_it_and_logs_each_change(admin_user):
    set_cap("daily", "automatic", 500, None, admin_user)
    set_cap("daily", "automatic", 900, None, admin_user)

    cap = BudgetCap.objects.get()
    assert (cap.characters, cap.updated_by) == (900, admin_user)
    actions = list(ModelLogEntry.objects.order_by("pk").values_list("action", flat=True))
    assert actions == ["wagtail.create", "wagtail.edit"]


def test_removing_a_cap_brings_back_the_settings_cap():
    set_cap("run", None, 10, None)
    assert remove_cap("run", None)
    assert not remove_cap("run", None)
    assert not BudgetCap.objects.exists()
    assert ModelLogEntry.objects.filter(action="wagtail.delete").count() == 1


def test_raising_a_cap_resumes_the_run_it_paused_without_waiting_for_the_janitor(
    site, begin, task_queue, conf, django_capture_on_commit_callbacks
):
    conf(UNITS_PER_CLAIM=10, RETRY_BACKOFF_SECONDS=0)
    set_cap("run", None, 12, None)
    run = run_until_paused(task_queue, begin(locales=("fr",)))
    assert run.error_code == ErrorCode.BUDGET_EXCEEDED

    with django_capture_on_commit_callbacks(execute=True):
        set_cap("run", None, 10_000, None)
    run.refresh_from_db()
    assert run.status != RunStatus.PAUSED
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
