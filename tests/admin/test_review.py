"""The review queue in the admin: listing, accept/dismiss/re-translate, bulk accept, the
permission and per-object edit checks, and the audit log."""

from __future__ import annotations

import pytest
from django.urls import reverse
from wagtail.log_actions import registry as log_registry
from wagtail.models import Page

from wagtail_bulk_translate.models import ReviewState, Unit
from wagtail_bulk_translate.runs.review import ACCEPTED, DISMISSED, RETRANSLATED

pytestmark = pytest.mark.django_db

QUEUE = "wagtail_bulk_translate_review:index"


def action_url(action: str) -> str:
    return reverse("wagtail_bulk_translate_review:action", args=[action])


def unit_of(run, page) -> Unit:
    return run.units.get(object_key=page.translation_key)


def french(page) -> Page:
    return Page.objects.get(translation_key=page.translation_key, locale__language_code="fr")


def test_the_queue_shows_source_translation_and_reason(reviewer_client, flagged_run, site_tree):
    response = reviewer_client.get(reverse(QUEUE))

    assert response.status_code == 200
    html = response.content.decode()
    unit = unit_of(flagged_run, site_tree["articles"][0])
    assert f'data-bt-review="{unit.pk}"' in html
    assert "Summary of First." in html and "Résumé" in html  # source and reason
    assert "[fr:" in html  # the translation beside it
    assert html.count("data-bt-review=") == 3
    per_run = reviewer_client.get(reverse(QUEUE), {"run": flagged_run.pk}).content.decode()
    assert per_run.count("data-bt-review=") == 3
    assert (
        reviewer_client.get(reverse(QUEUE), {"run": 999}).content.decode().count("data-bt-review=")
        == 0
    )


def test_accept_publishes_and_is_logged(reviewer_client, flagged_run, site_tree):
    article = site_tree["articles"][0]
    unit = unit_of(flagged_run, article)
    assert not french(article).live

    response = reviewer_client.post(action_url("accept"), {"unit": unit.pk})

    assert response.status_code == 302
    assert french(article).live
    unit.review.refresh_from_db()
    assert unit.review.state == ReviewState.ACCEPTED
    entry = log_registry.get_logs_for_instance(flagged_run).get(action=ACCEPTED)
    assert entry.user == reviewer_client.user and entry.data["unit"] == unit.pk


def test_bulk_accept(reviewer_client, flagged_run, site_tree):
    units = [unit_of(flagged_run, page) for page in site_tree["articles"]]

    reviewer_client.post(action_url("accept"), {"unit": [u.pk for u in units]})

    assert all(french(page).live for page in site_tree["articles"])
    assert log_registry.get_logs_for_instance(flagged_run).filter(action=ACCEPTED).count() == 2
    assert not french(site_tree["secret"]).live  # not selected


def test_dismiss_and_retranslate_are_logged(reviewer_client, flagged_run, site_tree, task_queue):
    first, second = (unit_of(flagged_run, page) for page in site_tree["articles"])

    reviewer_client.post(action_url("dismiss"), {"unit": first.pk})
    reviewer_client.post(action_url("retranslate"), {"unit": second.pk})

    logs = log_registry.get_logs_for_instance(flagged_run)
    assert logs.filter(action=DISMISSED, data__unit=first.pk).exists()
    assert logs.filter(action=RETRANSLATED, data__unit=second.pk).exists()
    second.review.refresh_from_db()
    assert second.review.retranslated_by.mode == "refresh"
    assert not french(site_tree["articles"][0]).live  # dismissed: still a draft


def test_without_the_permission_everything_is_403(outsider_client, flagged_run, site_tree):
    unit = unit_of(flagged_run, site_tree["articles"][0])

    assert outsider_client.get(reverse(QUEUE)).status_code == 403
    assert outsider_client.post(action_url("accept"), {"unit": unit.pk}).status_code == 403
    unit.review.refresh_from_db()
    assert unit.review.state == ReviewState.PENDING


def test_an_editor_who_cannot_edit_the_target_gets_403(editor_client, flagged_run, site_tree):
    """The editor may edit the English News subtree only, not the French targets."""
    unit = unit_of(flagged_run, site_tree["articles"][0])

    html = editor_client.get(reverse(QUEUE)).content.decode()
    response = editor_client.post(action_url("accept"), {"unit": unit.pk})

    assert "You cannot edit this translation" in html
    assert response.status_code == 403
    unit.review.refresh_from_db()
    assert unit.review.state == ReviewState.PENDING
    assert not log_registry.get_logs_for_instance(flagged_run).filter(action=ACCEPTED).exists()


def test_counts_on_the_run_page_the_listing_and_the_dashboard(reviewer_client, flagged_run):
    run_page = reviewer_client.get(reverse("wagtail_bulk_translate:inspect", args=[flagged_run.pk]))
    listing = reviewer_client.get(reverse("wagtail_bulk_translate:index"))
    dashboard = reviewer_client.get(reverse("wagtailadmin_home"))

    for response in (run_page, listing, dashboard):
        assert response.status_code == 200
        assert 'data-bt-review-count="3"' in response.content.decode()
    assert f"?run={flagged_run.pk}" in run_page.content.decode()
    assert f"?run={flagged_run.pk}" in listing.content.decode()


def test_an_unknown_unit_or_action_is_refused_with_a_message(reviewer_client, flagged_run):
    unknown = reviewer_client.post(action_url("accept"), {"unit": 99999}, follow=True)
    two = reviewer_client.post(action_url("dismiss"), {"unit": [1, 2]}, follow=True)

    assert "Unit #99999 was never flagged for review." in unknown.content.decode()
    assert "Choose one translation to review" in two.content.decode()


def test_translate_again_needs_the_right_to_edit_the_source(
    client, django_user_model, flagged_run, site_tree, task_queue
):
    """A French-team editor may edit and publish the French tree, not the English sources."""
    from tests.admin.conftest import admin_user
    from wagtail_bulk_translate.models import Run

    french_home = french(site_tree["home"])
    user = admin_user(django_user_model, "french team", manage_runs=True, pages=[french_home])
    client.force_login(user)
    unit = unit_of(flagged_run, site_tree["articles"][0])
    runs_before = Run.objects.count()

    response = client.post(action_url("retranslate"), {"unit": unit.pk}, follow=True)

    assert "french team may not edit “First”, the source" in response.content.decode()
    assert Run.objects.count() == runs_before
    unit.review.refresh_from_db()
    assert unit.review.state == ReviewState.PENDING
    # Accepting is theirs: they may edit and publish the French translation.
    client.post(action_url("accept"), {"unit": unit.pk})
    unit.review.refresh_from_db()
    assert unit.review.state == ReviewState.ACCEPTED
