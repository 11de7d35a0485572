"""The Budgets screen: guarded by ``manage_runs``; lists the caps in force with what is left and
where each is set; a cap set here replaces the settings' one, clearly refused twice, and a
raised cap lets the run it paused go on."""

from __future__ import annotations

import pytest
from django.urls import reverse
from wagtail.models import ModelLogEntry

from tests.admin.conftest import admin_user
from tests.lookups import run_until_paused
from wagtail_bulk_translate.models import BudgetCap, RunStatus

pytestmark = pytest.mark.django_db
INDEX = "wagtail_bulk_translate_budgets:index"
ADD = "wagtail_bulk_translate_budgets:add"


@pytest.fixture
def manager(django_user_model):
    return admin_user(django_user_model, "manager", manage_runs=True)


def test_the_screen_needs_the_permission(client, django_user_model):
    client.force_login(admin_user(django_user_model, "bystander", manage_runs=False))
    assert client.get(reverse(INDEX)).status_code == 403
    response = client.post(reverse(ADD), {"period": "daily", "characters": "5"})
    assert response.status_code == 403
    assert not BudgetCap.objects.exists()


def test_the_default_cap_is_listed_with_what_is_left_and_a_change_link(client, manager, conf):
    conf(BUDGETS={"origins": {"automatic": {"daily": {"characters": 100_000}}}})
    client.force_login(manager)
    html = client.get(reverse(INDEX)).content.decode()

    assert "The daily cap on automatic runs" in html
    assert "100,000 of 100,000 characters left today" in html
    assert "Settings" in html
    assert f"{reverse(ADD)}?period=daily&amp;origin=automatic" in html


def test_the_change_link_prefills_the_form(client, manager):
    client.force_login(manager)
    form = client.get(reverse(ADD), {"period": "daily", "origin": "automatic"}).context["form"]
    assert (form.initial["period"], form.initial["origin"]) == ("daily", "automatic")


def test_a_cap_set_here_replaces_the_settings_cap_and_is_audit_logged(client, manager, conf):
    conf(BUDGETS={"daily": {"characters": 100_000}})
    client.force_login(manager)
    response = client.post(
        reverse(ADD), {"period": "daily", "origin": "", "characters": "2500", "cost": ""}
    )
    assert response.status_code == 302, response.context["form"].errors

    cap = BudgetCap.objects.get()
    assert (cap.characters, cap.updated_by) == (2500, manager)
    assert ModelLogEntry.objects.get().action == "wagtail.create"
    html = client.get(reverse(INDEX)).content.decode()
    assert "2,500 of 2,500 characters left today" in html
    assert "100,000" not in html


def test_a_second_cap_of_the_same_period_and_runs_is_refused_in_words(client, manager):
    BudgetCap.objects.create(period="daily", origin="automatic", characters=10)
    client.force_login(manager)
    response = client.post(
        reverse(ADD), {"period": "daily", "origin": "automatic", "characters": "20"}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["period"] == [
        "There already is the daily cap on automatic runs: edit it instead."
    ]
    assert BudgetCap.objects.get().characters == 10


@pytest.mark.parametrize(
    ("field", "value"), [("characters", "-5"), ("cost", "-1"), ("cost", "0.001")]
)
def test_a_negative_or_unstorable_limit_is_refused(client, manager, field, value):
    client.force_login(manager)
    response = client.post(reverse(ADD), {"period": "run", field: value})
    assert field in response.context["form"].errors
    assert not BudgetCap.objects.exists()


def test_raising_the_cap_in_the_form_lets_the_paused_run_go_on(
    client, manager, site, begin, task_queue, conf, django_capture_on_commit_callbacks
):
    conf(UNITS_PER_CLAIM=10, RETRY_BACKOFF_SECONDS=0)
    cap = BudgetCap.objects.create(period="run", origin="", characters=12)
    run = run_until_paused(task_queue, begin(locales=("fr",)))
    assert "Bulk translation → Budgets" in run.error_message

    client.force_login(manager)
    edit = reverse("wagtail_bulk_translate_budgets:edit", args=[cap.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(edit, {"period": "run", "origin": "", "characters": "100000"})
    assert response.status_code == 302, response.context["form"].errors
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def test_a_cost_cap_for_a_translator_that_reports_no_money_is_saved_with_a_warning(client, manager):
    """The pseudo translator bills characters, like DeepL: a cost cap would never hold it."""
    client.force_login(manager)
    response = client.post(reverse(ADD), {"period": "monthly", "cost": "20"}, follow=True)

    assert BudgetCap.objects.get().cost == 20
    assert "PseudoTranslator bills characters and reports no money" in response.content.decode()
