"""The review API acts for a user: what they could not do by hand is refused, with the reason."""

from __future__ import annotations

import pytest

from wagtail_bulk_translate import api
from wagtail_bulk_translate.errors import PermissionRefused
from wagtail_bulk_translate.models import GlossaryTerm, GlossaryTranslation, ReviewState

pytestmark = pytest.mark.django_db


@pytest.fixture
def flagged_story(bilingual, start, task_queue, recording_translator):
    """A publishing run (as the system) into French; the translator ignores the glossary's
    "Summary" → "Résumé", so Story's new French page waits for review as a draft."""
    term = GlossaryTerm.objects.create(source_locale=bilingual.home.locale, source_term="Summary")
    GlossaryTranslation.objects.create(term=term, target_locale=bilingual.fr, target_term="Résumé")
    run = start(
        scope={"objects": [["wagtailcore.Page", str(bilingual.story.pk)]]},
        source_locale="en",
        target_locales=["fr"],
        publish_policy="publish",
    )
    task_queue.drain()
    return run.units.get(object_key=bilingual.story.translation_key)


def test_accept_needs_the_right_to_publish_the_target(bilingual, flagged_story):
    with pytest.raises(PermissionRefused, match="english may not edit its French translation"):
        api.accept_review(flagged_story.pk, bilingual.english_editor)
    review, published = api.accept_review(flagged_story.pk, bilingual.french_editor)
    assert (review.state, published) == (ReviewState.ACCEPTED, True)


def test_translate_again_needs_the_right_to_edit_the_source_and_the_target(
    bilingual, flagged_story
):
    for user, says in [
        (bilingual.french_editor, "french may not edit “Story”, the source"),
        (bilingual.english_editor, "english may not edit its French translation"),
    ]:
        with pytest.raises(PermissionRefused, match=says):
            api.retranslate_review(flagged_story.pk, user)
    assert api.review_of(flagged_story.pk).state == ReviewState.PENDING
    run = api.retranslate_review(flagged_story.pk)  # the system (no user) may
    assert run.acts_as_system


def test_dismiss_needs_the_right_to_edit_the_target(bilingual, flagged_story):
    with pytest.raises(PermissionRefused):
        api.dismiss_review(flagged_story.pk, bilingual.english_editor)
    assert api.dismiss_review(flagged_story.pk, bilingual.french_editor).state == "dismissed"
