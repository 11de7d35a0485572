"""Checks after translation wired into the engine: a flagged unit waits for review as a draft."""

from __future__ import annotations

import pytest
from wagtail.log_actions import registry as log_registry
from wagtail.models import Page

from tests import factories as f
from tests.translators.conftest import llm_options
from wagtail_bulk_translate import api
from wagtail_bulk_translate.engine.review import mark_for_review
from wagtail_bulk_translate.engine.work import UnitWork
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import GlossaryTerm, GlossaryTranslation, ReviewState, Unit
from wagtail_bulk_translate.runs.review import ACCEPTED, DISMISSED, RETRANSLATED

pytestmark = pytest.mark.django_db


@pytest.fixture
def story_term(site):
    """The glossary says "Story" is "Récit" in French: the pseudo translator ignores it."""
    locales = f.locales()
    term = GlossaryTerm.objects.create(source_locale=locales["en"], source_term="Story")
    GlossaryTranslation.objects.create(term=term, target_locale=locales["fr"], target_term="Récit")
    return term


@pytest.fixture
def run_to_end(begin, task_queue):
    def _run(**kwargs):
        kwargs.setdefault("publish_policy", "publish")
        run = begin(locales=("fr",), **kwargs)
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _run


def target(page: Page, code: str = "fr") -> Page:
    return Page.objects.get(
        translation_key=page.translation_key, locale__language_code=code, alias_of__isnull=True
    ).specific


def unit_of(run, page: Page) -> Unit:
    return run.units.get(object_key=page.translation_key)


def test_a_translation_ignoring_a_term_is_stored_in_review_and_its_target_is_a_draft(
    site, story_term, run_to_end
):
    run = run_to_end()

    assert run.status == "succeeded"
    story = unit_of(run, site.story)
    assert story.status == "succeeded"
    assert story.review.state == ReviewState.PENDING
    assert story.review.would_publish is True
    flag = story.review.flags[0]
    assert (flag["code"], flag["term"], flag["source"]) == ("missing_term", "Story", "Story 0")
    assert "Récit" in flag["message"] and flag["translation"].startswith("[fr:")
    assert not target(site.story).live  # a draft though the run publishes
    assert target(site.news).live  # nothing flagged: published
    assert not Unit.objects.filter(object_key=site.news.translation_key, review__isnull=False)
    assert api.pending_review_count(run.pk) == 2
    assert api.pending_review_counts([run.pk]) == {run.pk: 2}


def test_accepting_publishes_the_draft_and_is_logged(site, story_term, run_to_end):
    run = run_to_end()
    unit = unit_of(run, site.story)

    review, published = api.accept_review(unit.pk)

    assert published and review.state == ReviewState.ACCEPTED
    assert target(site.story).live
    assert api.pending_review_count(run.pk) == 1
    entry = log_registry.get_logs_for_instance(run).filter(action=ACCEPTED).get()
    assert entry.data["unit"] == unit.pk and entry.data["published"] is True
    with pytest.raises(api.BulkTranslateError, match="not waiting for review"):
        api.accept_review(unit.pk)


def test_accepting_a_draft_run_publishes_nothing(site, story_term, run_to_end):
    run = run_to_end(publish_policy="draft")
    unit = unit_of(run, site.story)
    assert unit.review.would_publish is False

    review, published = api.accept_review(unit.pk)

    assert not published and review.state == ReviewState.ACCEPTED
    assert not target(site.story).live


def test_dismissing_leaves_the_draft_and_closes_the_review(site, story_term, run_to_end):
    run = run_to_end()
    unit = unit_of(run, site.story)

    review = api.dismiss_review(unit.pk)

    assert review.state == ReviewState.DISMISSED
    assert not target(site.story).live
    assert log_registry.get_logs_for_instance(run).filter(action=DISMISSED).exists()
    assert [r.unit_id for r in api.review_queue(run.pk)] == [unit_of(run, site.other).pk]


def test_retranslating_after_fixing_the_term_starts_a_one_unit_run_that_publishes(
    site,
    story_term,
    run_to_end,
    recording_translator,
    task_queue,
    django_capture_on_commit_callbacks,
):
    run = run_to_end()
    unit = unit_of(run, site.story)
    for flag in unit.review.flags:  # the translator now follows the glossary
        recording_translator.overrides[flag["source"]] = lambda text: text.replace("Story", "Récit")

    with django_capture_on_commit_callbacks(execute=True):
        again = api.retranslate_review(unit.pk)
    task_queue.drain()
    again.refresh_from_db()

    assert again.pk != run.pk and again.status == "succeeded" and again.mode == "refresh"
    assert list(again.units.values_list("object_key", "target_locale__language_code")) == [
        (site.story.translation_key, "fr")
    ]
    assert not Unit.objects.filter(run=again, review__isnull=False).exists()
    assert target(site.story).live and target(site.story).title == "Récit 0"
    unit.review.refresh_from_db()
    assert unit.review.state == ReviewState.RETRANSLATED
    assert unit.review.retranslated_by_id == again.pk
    assert log_registry.get_logs_for_instance(run).filter(action=RETRANSLATED).exists()


def test_a_unit_written_again_without_a_flag_leaves_review(site, story_term, run_to_end):
    run = run_to_end()
    unit = unit_of(run, site.story)

    mark_for_review(UnitWork(unit=unit), [], True, site.story)  # a retry found nothing wrong

    assert not Unit.objects.filter(pk=unit.pk, review__isnull=False).exists()
    assert api.pending_review_count(run.pk) == 1


def test_reverting_after_accepting_keeps_the_accepted_translation(
    site, story_term, run_to_end, django_capture_on_commit_callbacks, task_queue
):
    """Accepting is a person's decision that publishes the target: a later revert of the run
    does not clobber it (the target changed since the run wrote it) and says why; the rest of
    the run is reverted."""
    run = run_to_end()
    unit = unit_of(run, site.story)
    api.accept_review(unit.pk)
    assert target(site.story).live

    with django_capture_on_commit_callbacks(execute=True):
        api.start_revert(run.pk)
    task_queue.drain()

    run.refresh_from_db()
    unit.refresh_from_db()
    assert run.status == "reverted"
    assert unit.reverted_at is None and unit.revert_refused
    assert target(site.story).live
    other = unit_of(run, site.stories[1])
    assert other.reverted_at is not None
    assert not Page.objects.filter(
        translation_key=site.stories[1].translation_key, locale__language_code="fr"
    ).exists()


def test_a_site_settings_row_is_checked_too(begin, task_queue):
    """Site settings rows are written live (they have no drafts), but a flagged translation
    still waits in the review queue; accepting it has nothing to publish."""
    from wagtail.models import Site

    from demo.models import SocialLinks

    locales = f.locales()
    home = f.home_page("Home")
    fr_site = Site.objects.create(hostname="fr.localhost", port=80, root_page=home)
    SocialLinks.objects.create(
        site=Site.objects.get(is_default_site=True),
        newsletter_pitch="One Northwind letter a month.",
        contact_heading="Write to the editors",
    )
    term = GlossaryTerm.objects.create(source_locale=locales["en"], source_term="Northwind")
    GlossaryTranslation.objects.create(
        term=term, target_locale=locales["fr"], target_term="Nordvent"
    )

    run = begin(scope={"settings": ["demo.SocialLinks"]}, locales=("fr",))
    task_queue.drain()

    unit = run.units.get()
    assert unit.status == "succeeded"
    assert unit.review.state == ReviewState.PENDING and unit.review.would_publish is False
    assert unit.review.flags[0]["term"] == "Northwind"
    assert SocialLinks.objects.get(site=fr_site).newsletter_pitch.startswith("[fr:")
    review, published = api.accept_review(unit.pk)
    assert review.state == ReviewState.ACCEPTED and not published


# --- a text that cannot be translated holds its own object only ---------------------------------

LINK_TEXT = 'Baked every morning, see <a href="/hours/">our hours</a>.'


@pytest.fixture
def bakery(task_queue):
    """home (its intro holds a link) > breads > two articles."""
    locales = f.locales()
    home = f.home_page("Bakery", intro=f.rich(LINK_TEXT))
    breads = f.index_page(home, "Breads")
    articles = [f.article(breads, name) for name in ("Sourdough", "Rye")]
    task_queue.clear()
    return {"locales": locales, "home": home, "descendants": [breads, *articles]}


def translate_bakery(start, task_queue, bakery) -> api.Run:
    run = start(
        scope={"pages": [{"id": bakery["home"].pk, "descendants": True}]},
        source_locale="en",
        target_locales=["fr"],
        publish_policy="publish",
    )
    task_queue.drain()
    run.refresh_from_db()
    return run


def assert_home_held_and_descendants_written(run, bakery, code: str) -> None:
    home_unit = run.units.get(object_key=bakery["home"].translation_key)
    assert home_unit.status == "succeeded"
    assert home_unit.error_code == ErrorCode.HELD_FOR_REVIEW
    review = home_unit.review
    assert review.state == ReviewState.PENDING and review.would_publish
    [flag] = review.flags
    assert flag["code"] == code and flag["source"] == api_text(LINK_TEXT) and flag["message"]
    home_fr = target(bakery["home"])
    assert not home_fr.live  # a draft, whatever the run's publish policy
    for page in bakery["descendants"]:
        unit = run.units.get(object_key=page.translation_key)
        assert (unit.status, unit.error_code) == ("succeeded", "")
        assert target(page).live  # written by the run's policy, under the held parent
    summary = api.run_summary(run)
    assert summary["outcomes"]["held_for_review"] == 1
    assert summary["outcomes"]["skipped_parent_failed"] == 0
    assert summary["units"]["failed"] == 0
    assert run.status == "succeeded"


def api_text(html: str) -> str:
    """The text as the engine sends it: wagtail-localize's segment, its link as an id."""
    return html.replace('<a href="/hours/">', '<a id="a1">')


def test_deepl_breaking_the_parents_markup_holds_the_parent_alone(
    start, task_queue, bakery, conf, fake_deepl
):
    conf(
        RETRY_BACKOFF_SECONDS=0,
        TRANSLATOR={
            "CLASS": "wagtail_bulk_translate.translators.deepl.DeepLTranslator",
            "OPTIONS": {"AUTH_KEY": "test:fx", "SERVER_URL": fake_deepl.url},
        },
    )
    fake_deepl.break_markup(api_text(LINK_TEXT))

    run = translate_bakery(start, task_queue, bakery)

    assert_home_held_and_descendants_written(run, bakery, ErrorCode.INVALID_MARKUP)
    assert len(fake_deepl.translate_requests()) == 2  # every page at once, and DeepL's retry


def test_a_language_model_dropping_the_parents_placeholder_holds_the_parent_alone(
    start, task_queue, bakery, conf, fake_openai
):
    conf(
        RETRY_BACKOFF_SECONDS=0,
        TRANSLATOR={
            "CLASS": "wagtail_bulk_translate.translators.llm.LLMTranslator",
            "OPTIONS": llm_options(fake_openai),
        },
    )
    fake_openai.fault_on("Baked every morning", "drop_placeholder")

    run = translate_bakery(start, task_queue, bakery)

    assert_home_held_and_descendants_written(run, bakery, ErrorCode.INVALID_MARKUP)
    first = fake_openai.answered()[0]
    assert len(first.items) == 11  # every page's texts (titles, intros, summaries) at once
    prompt = first.message("user")
    assert all(title in prompt for title in ("Bakery", "Breads", "Sourdough", "Rye"))
