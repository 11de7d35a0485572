"""One object's translation state per locale: each state, agreement with the coverage report,
the target's origin, and a query count that does not grow with the locales."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from wagtail.models import Locale, Page

from tests import factories
from wagtail_bulk_translate.api import coverage
from wagtail_bulk_translate.models import Run, Unit, UnitStatus
from wagtail_bulk_translate.object_state import source_states, target_origin

pytestmark = pytest.mark.django_db


@pytest.fixture
def story():
    home = factories.home_page("Home")
    news = factories.index_page(home, "News")
    return factories.article(news, "A quiet story")


def translate(start, task_queue, page, locales=("fr",), **options) -> Run:
    scope = {"pages": [{"id": page.pk, "descendants": False}]}
    run = start(scope=scope, source_locale="en", target_locales=list(locales), **options)
    task_queue.drain()
    run.refresh_from_db()
    return run


def states_of(page) -> dict[str, object]:
    return {s.locale.language_code: s for s in source_states(Page.objects.get(pk=page.pk))}


def target_in(page, code: str) -> Page:
    return Page.objects.get(translation_key=page.translation_key, locale__language_code=code)


def test_nothing_translated_is_missing_everywhere_but_the_source(story):
    states = states_of(story)

    assert set(states) == {"fr", "de", "es"}
    assert {s.state for s in states.values()} == {"missing"}
    assert states["fr"].target is None and states["fr"].last is None


def test_published_translation_is_up_to_date_and_a_draft_one_waits(start, task_queue, story):
    translate(start, task_queue, story, ["fr"], publish_policy="publish")
    run = translate(start, task_queue, story, ["de"])  # drafts by default

    states = states_of(story)

    assert states["fr"].state == "up_to_date"
    assert states["de"].state == "draft_waiting" and states["de"].label == "Up to date (draft)"
    assert states["de"].last.run_id == run.pk
    assert states["es"].state == "missing"


def test_source_edited_after_translation_is_outdated_since_that_revision(start, task_queue, story):
    translate(start, task_queue, story, ["fr"], publish_policy="publish")
    editor = get_user_model().objects.create_user("ed", first_name="Edith", last_name="Piaf")
    story.refresh_from_db()
    story.title = "A loud story"
    first_edit = story.save_revision(user=editor)
    first_edit.publish()
    story.save_revision()  # a later edit does not move "since"

    fr = states_of(story)["fr"]

    assert fr.state == "outdated" and fr.outdated
    assert fr.changed.revision_id == first_edit.pk
    assert fr.changed.by == "Edith Piaf"
    fr_row = next(
        r for r in coverage(story.locale) if r.label == "demo.ArticlePage" and r.locale == "fr"
    )
    assert fr_row.outdated == 1  # the report agrees


def test_target_edited_by_hand_keeps_its_state_even_when_the_source_changes(
    start, task_queue, story
):
    translate(start, task_queue, story, ["fr"], publish_policy="publish")
    target = target_in(story, "fr").specific
    target.title = "Une histoire calme, retouchée"
    target.save_revision().publish()
    story.refresh_from_db()
    story.save_revision().publish()

    fr = states_of(story)["fr"]

    assert fr.state == "edited_by_hand" and fr.edited_by_hand
    assert fr.outdated  # still said (the panel shows both)


def test_a_unit_in_flight_is_being_translated(start, story):
    run = start(
        scope={"pages": [{"id": story.pk, "descendants": False}]},
        source_locale="en",
        target_locales=["fr"],
    )
    Unit.objects.create(
        run=run,
        position=0,
        content_type_id=story.content_type_id,
        object_id=str(story.pk),
        object_key=story.translation_key,
        target_locale=Locale.objects.get(language_code="fr"),
        status=UnitStatus.PENDING,
    )

    fr = states_of(story)["fr"]

    assert fr.state == "in_progress" and fr.in_flight_run_id == run.pk


def test_snippet_without_revisions_is_translated_but_not_called_up_to_date(start, task_queue):
    category = factories.category()
    start(scope={"snippets": ["demo.Category"]}, source_locale="en", target_locales=["fr"])
    task_queue.drain()

    states = {s.locale.language_code: s for s in source_states(category)}

    assert states["fr"].state == "translated"
    assert states["de"].state == "missing"


def test_target_origin_names_the_run_and_the_source_revision(start, task_queue, story):
    story.save_revision().publish()
    run = translate(start, task_queue, story, ["fr"], publish_policy="publish")
    story.refresh_from_db()
    read = story.live_revision_id
    target = target_in(story, "fr")

    origin = target_origin(target)

    assert origin.run_id == run.pk
    assert origin.source.pk == story.pk
    assert origin.source_revision.revision_id == read
    assert origin.source_state.state == "up_to_date"
    story.save_revision().publish()
    assert target_origin(target).source_state.state == "outdated"
    assert target_origin(story) is None  # the source is no run's target


def test_query_count_does_not_grow_with_the_locales(start, task_queue, story, count_queries):
    translate(start, task_queue, story, ["fr", "de"], publish_policy="publish")
    story.refresh_from_db()
    story.save_revision().publish()
    with count_queries() as few:
        source_states(Page.objects.get(pk=story.pk))

    for code in ("it", "nl", "pt", "pl"):
        Locale.objects.create(language_code=code)
    with count_queries() as more:
        states = source_states(Page.objects.get(pk=story.pk))

    assert len(states) == 7
    assert len(more.captured_queries) == len(few.captured_queries) <= 8
