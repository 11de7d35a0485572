"""Add a term and translate again, in one flow, from a flagged translation: the form is
pre-filled with the flagged term, saving adds (or corrects) the term and starts a one-unit run
that uses it; bad input and missing rights change nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse
from wagtail.models import ModelLogEntry

from wagtail_bulk_translate.models import (
    GlossaryChange,
    GlossaryTerm,
    GlossaryTranslation,
    ReviewState,
    Run,
)

pytestmark = pytest.mark.django_db


def term_url(unit) -> str:
    return reverse("wagtail_bulk_translate_review:add_term", args=[unit.pk])


@pytest.fixture
def flagged_unit(flagged_run, site_tree):
    return flagged_run.units.get(object_key=site_tree["articles"][0].translation_key)


def test_the_queue_links_each_flagged_unit_to_the_form(reviewer_client, flagged_unit):
    html = reviewer_client.get(reverse("wagtail_bulk_translate_review:index")).content.decode()
    assert term_url(flagged_unit) in html


def test_the_form_is_prefilled_with_the_flagged_term_and_its_translation(
    reviewer_client, flagged_unit
):
    response = reviewer_client.get(term_url(flagged_unit))
    assert response.status_code == 200
    assert response.context["form"].initial == {"source_term": "Summary", "target_term": "Résumé"}
    assert "should be translated as “Résumé”" in response.content.decode()


def test_saving_corrects_the_term_and_translates_the_unit_again(
    reviewer_client, flagged_unit, task_queue, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = reviewer_client.post(
            term_url(flagged_unit), {"source_term": "Summary", "target_term": "Sommaire"}
        )
    response = reviewer_client.get(response.url)

    assert "“Summary” is in the glossary; unit #" in response.content.decode()
    term = GlossaryTerm.objects.get(source_term="Summary")
    assert term.translations.get().target_term == "Sommaire"  # replaced, not added
    flagged_unit.review.refresh_from_db()
    assert flagged_unit.review.state == ReviewState.RETRANSLATED
    new_run = flagged_unit.review.retranslated_by
    assert GlossaryChange.objects.exists()  # texts with the term are outdated elsewhere too
    assert ModelLogEntry.objects.filter(action="wagtail.edit", object_id=str(term.pk)).exists()
    task_queue.drain()
    new_run.refresh_from_db()
    assert (new_run.mode, new_run.status, new_run.units.count()) == ("refresh", "succeeded", 1)


def test_a_new_never_translate_term_needs_no_translation(reviewer_client, flagged_unit):
    response = reviewer_client.post(
        term_url(flagged_unit), {"source_term": "Northwind", "never_translate": "on"}
    )
    assert response.status_code == 302
    term = GlossaryTerm.objects.get(source_term="Northwind")
    assert term.never_translate and not term.translations.exists()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"source_term": "", "target_term": "Sommaire"}, "source_term"),
        ({"source_term": "Summary", "target_term": "  "}, "target_term"),
        ({"source_term": "x" * 300, "target_term": "y"}, "source_term"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(reviewer_client, flagged_unit, data, field):
    runs = Run.objects.count()
    response = reviewer_client.post(term_url(flagged_unit), data)

    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert GlossaryTranslation.objects.get().target_term == "Résumé"
    assert Run.objects.count() == runs
    flagged_unit.review.refresh_from_db()
    assert flagged_unit.review.state == ReviewState.PENDING


def test_an_editor_who_cannot_edit_the_target_gets_403(editor_client, flagged_unit):
    assert editor_client.get(term_url(flagged_unit)).status_code == 403
    response = editor_client.post(term_url(flagged_unit), {"source_term": "A", "target_term": "B"})
    assert response.status_code == 403
    assert not GlossaryTerm.objects.filter(source_term="A").exists()


def test_a_unit_no_longer_waiting_goes_back_to_the_queue_with_a_message(
    reviewer_client, flagged_unit
):
    reviewer_client.post(
        reverse("wagtail_bulk_translate_review:action", args=["dismiss"]), {"unit": flagged_unit.pk}
    )
    response = reviewer_client.get(term_url(flagged_unit), follow=True)
    assert f"Unit #{flagged_unit.pk} is not waiting for review." in response.content.decode()
    queue = reverse("wagtail_bulk_translate_review:index")
    assert response.redirect_chain[-1][0] == f"{queue}?run={flagged_unit.run_id}"
