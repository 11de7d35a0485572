"""The screens around actions: confirmation pages in Wagtail's layout, the pause notice, the
retry form's widgets."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.admin.conftest import make_run

pytestmark = pytest.mark.django_db


def url(name: str, run) -> str:
    return reverse(f"wagtail_bulk_translate:{name}", args=[run.pk])


@pytest.mark.parametrize(
    ("action", "status", "units", "title"),
    [("cancel", "running", 10, "Cancel"), ("revert", "succeeded", 3, "Revert")],
)
def test_confirmation_pages_have_wagtails_header_bar(admin_client, action, status, units, title):
    run = make_run(units=units, status=status, finished_at=timezone.now())
    html = admin_client.get(url(action, run)).content.decode()
    assert 'class="w-header w-header--hasform' not in html  # the old full header
    assert "w-breadcrumbs" in html  # Wagtail's slim header bar, with breadcrumbs
    header = html[html.index("w-breadcrumbs") : html.index("nice-padding")]
    assert reverse("wagtail_bulk_translate:index") in header
    assert url("inspect", run) in header and f"Run #{run.pk}" in header
    assert f">{title}<" in header or f"{title}\n" in header
    assert f'data-bt-confirm="{action}"' in html


def test_a_pause_by_an_editor_is_information_with_their_display_name(client, django_user_model):
    user = django_user_model.objects.create_superuser(
        "jdoe", "jdoe@example.com", "pw", first_name="Jane", last_name="Doe"
    )
    client.force_login(user)
    run = make_run(units=10)
    client.post(url("pause", run))
    run.refresh_from_db()
    assert run.status == "paused" and run.error_message == "Paused by Jane Doe."
    html = client.get(url("inspect", run)).content.decode()
    assert "data-bt-run-paused" in html and "data-bt-run-error" not in html
    notice = html[html.index("data-bt-run-paused") - 60 :]
    assert "help-info" in notice[:80] and "help-critical" not in notice[:80]


def test_a_pause_for_quota_is_a_warning(admin_client):
    run = make_run(units=10, status="paused", error_code="quota_exceeded", error_message="Quota.")
    html = admin_client.get(url("inspect", run)).content.decode()
    notice = html[html.index("data-bt-run-paused") - 60 :]
    assert "help-warning" in notice[:80]
    assert "Translator quota exhausted" in notice


def test_retry_form_uses_checkbox_lists_not_native_multiselects(admin_client):
    run = make_run(units=10, status="partial", finished_at=timezone.now())
    html = admin_client.get(url("inspect", run)).content.decode()
    form = html[
        html.index("data-bt-retry-form") : html.index("</form>", html.index("data-bt-retry-form"))
    ]
    assert "<select" not in form
    assert form.count('type="checkbox"') == 4  # one type, two locales, one reason
    assert 'name="locales" value="de"' in form and 'name="locales" value="fr"' in form
    assert 'name="error_codes" value="translator_error"' in form
    assert 'name="models" value="wagtailcore.Page"' in form


def test_retry_form_narrows_the_retry(admin_client, task_queue):
    run = make_run(units=10, status="partial", finished_at=timezone.now())
    admin_client.post(url("retry", run), {"locales": ["fr"]})
    run.refresh_from_db()
    assert run.units.filter(status="pending", target_locale__language_code="fr").exists()
    assert run.units.filter(status="failed", target_locale__language_code="de").exists()
