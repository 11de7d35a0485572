from collections import Counter
from types import SimpleNamespace

import pytest
from wagtail.models import Page

from demo.models import Category, FooterText
from tests.factories import article, category, footer, home_page, index_page, locales
from wagtail_bulk_translate.engine.sampling import choose_sample, plan_picks
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import PublishPolicy, RunStatus, Unit, UnitStatus

SIZES = {(ct, loc): 50 for ct in (1, 2, 3) for loc in (10, 11, 12, 13)}


def test_plan_is_deterministic_per_seed():
    assert plan_picks(SIZES, 9, seed=5) == plan_picks(SIZES, 9, seed=5)
    assert plan_picks(SIZES, 9, seed=5) != plan_picks(SIZES, 9, seed=6)


def test_every_type_and_locale_is_covered_before_any_gets_a_second_pick():
    picks = plan_picks(SIZES, 4, seed=1)
    assert {loc for _ct, loc in picks} == {10, 11, 12, 13}
    assert {ct for ct, _loc in picks} == {1, 2, 3}
    types = Counter(ct for ct, _loc in picks)
    assert max(types.values()) == 2  # 4 picks over 3 types: one type repeats, only once


def test_picks_spread_evenly_as_the_sample_grows():
    picks = plan_picks(SIZES, 12, seed=3)
    assert Counter(ct for ct, _ in picks) == {1: 4, 2: 4, 3: 4}
    assert Counter(loc for _, loc in picks) == {10: 3, 11: 3, 12: 3, 13: 3}


def test_small_strata_run_out_and_the_sample_stops_at_the_population():
    sizes = {(1, 10): 1, (2, 10): 5}
    picks = plan_picks(sizes, 10, seed=0)
    assert len(picks) == 6
    assert picks.count((1, 10)) == 1


# --- sampling a real run (database) -------------------------------------------------------------

PAGE_TYPES = ("homepage", "articleindexpage", "articlepage")


@pytest.fixture
def canary_site():
    """4 content types (3 page types and Category) in en; 3 target locales."""
    loc = locales()
    home = home_page("Home")
    news = index_page(home, "News")
    stories = [article(news, f"Story {i}") for i in range(4)]
    categories = [category(name) for name in ("Travel", "Food", "Science")]
    scope = {"pages": [{"id": home.pk, "descendants": True}], "snippets": ["demo.Category"]}
    return SimpleNamespace(
        loc=loc, home=home, news=news, stories=stories, categories=categories, scope=scope
    )


def start_canary(start, site, size, **kwargs):
    options = {
        "scope": site.scope,
        "source_locale": "en",
        "target_locales": ["fr", "de", "es"],
        "canary_size": size,
    }
    return start(**{**options, **kwargs})


def plugin_task_names(task_queue) -> list[str]:
    return [n for n in task_queue.names() if n in ("coordinate_run", "process_units")]


def run_coordinator(task_queue, max_ticks: int = 50) -> None:
    for _ in range(max_ticks):
        queued = [r for r in task_queue.pending() if r.task.name == "coordinate_run"]
        if not queued:
            return
        task_queue.backend.results.remove(queued[0])
        with task_queue.capture_on_commit(execute=True):
            queued[0].task.func(*queued[0].args, **queued[0].kwargs)
    raise AssertionError(f"the coordinator is still queued after {max_ticks} ticks")


def sampled_units(run):
    """The sample itself (pending units also include the parents sampled pages need)."""
    return run.units.filter(pk__in=choose_sample(run.pk, run.canary_size))


def promoted_units(run):
    return run.units.exclude(error_code=ErrorCode.CANARY_NOT_SAMPLED)


def parents_needed(run):
    """Units of the sampled pages' ancestors, in the sampled pages' locales."""
    wanted = set()
    for unit in sampled_units(run):
        page = Page.objects.filter(pk=unit.object_id, content_type_id=unit.content_type_id).first()
        if page is not None:
            wanted |= {(a.translation_key, unit.target_locale_id) for a in page.get_ancestors()}
    return {u.pk for u in run.units.all() if (u.object_key, u.target_locale_id) in wanted}


@pytest.mark.django_db
def test_the_sample_is_deterministic_per_run(canary_site, start, task_queue):
    run = start_canary(start, canary_site, 5)
    run_coordinator(task_queue)
    sampled = sorted(sampled_units(run).values_list("pk", flat=True))
    assert len(sampled) == 5
    assert set(run.units.filter(pk__in=sampled).values_list("status", flat=True)) == {
        UnitStatus.PENDING
    }
    # Re-running the sampler on the same run (a redelivered coordinator) picks the same units.
    assert choose_sample(run.pk, 5) == sampled
    assert choose_sample(run.pk, 5) == sampled


@pytest.mark.django_db
@pytest.mark.parametrize("size", [3, 4, 8])
def test_the_sample_is_stratified_over_content_types_and_locales(
    canary_site, start, task_queue, size
):
    run = start_canary(start, canary_site, size)
    run_coordinator(task_queue)
    sampled = list(
        sampled_units(run).values_list("content_type__model", "target_locale__language_code")
    )
    assert len(sampled) == size
    types = Counter(model for model, _ in sampled)
    langs = Counter(code for _, code in sampled)
    all_types = {*PAGE_TYPES, "category"}
    # Every content type and every locale is represented before any of them gets a second pick.
    if size < len(all_types):
        assert max(types.values()) == 1, types
    else:
        assert set(types) == all_types, types
    assert set(langs) == {"fr", "de", "es"}, langs
    if size < 2 * 3:
        assert max(langs.values()) <= 2, langs


@pytest.mark.django_db
def test_a_canary_larger_than_the_scope_samples_every_unit(canary_site, start, task_queue):
    run = start_canary(start, canary_site, 1000)
    run_coordinator(task_queue)
    assert run.units.count() == 9 * 3
    assert run.units.filter(status=UnitStatus.PENDING).count() == 9 * 3


@pytest.mark.django_db
def test_no_worker_is_queued_before_the_sample_is_taken(canary_site, start, task_queue, settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "ENUMERATION_BATCH_SIZE": 2,
        "COORDINATOR_TICK_SECONDS": 0,
    }
    run = start_canary(start, canary_site, 4)
    ticks = 0
    while "coordinate_run" in plugin_task_names(task_queue):
        assert ticks < 50, "the coordinator never finishes"
        assert "process_units" not in plugin_task_names(task_queue)
        assert not run.units.filter(status=UnitStatus.PENDING).exists()
        queued = next(r for r in task_queue.pending() if r.task.name == "coordinate_run")
        task_queue.backend.results.remove(queued)
        with task_queue.capture_on_commit(execute=True):
            queued.task.func(*queued.args, **queued.kwargs)
        ticks += 1
        run.refresh_from_db()
        if not run.enumeration_done:
            assert "process_units" not in plugin_task_names(task_queue)
    run.refresh_from_db()
    assert run.enumeration_done
    assert ticks >= 9 // 2, "enumeration was not split into ticks"
    assert "process_units" in plugin_task_names(task_queue)
    pending = set(run.units.filter(status=UnitStatus.PENDING).values_list("pk", flat=True))
    assert pending == set(sampled_units(run).values_list("pk", flat=True)) | parents_needed(run)


@pytest.mark.django_db
def test_only_sampled_units_are_translated_the_others_are_skipped_for_free(
    canary_site, start, task_queue, recording_translator
):
    run = start_canary(start, canary_site, 4)
    run_coordinator(task_queue)
    # The sample, plus the parents its pages need in their locales (written as drafts too).
    sampled = set(sampled_units(run).values_list("pk", flat=True)) | parents_needed(run)
    task_queue.drain(max_tasks=500)

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    done = run.units.filter(pk__in=sampled)
    assert set(done.values_list("status", flat=True)) == {UnitStatus.SUCCEEDED}
    assert all(u.attempts == 1 and u.strings_translated > 0 for u in done)
    others = run.units.exclude(pk__in=sampled)
    assert others.count() == 9 * 3 - len(sampled)
    for unit in others:
        assert unit.status == UnitStatus.SKIPPED
        assert unit.error_code == ErrorCode.CANARY_NOT_SAMPLED
        assert unit.attempts == 0
        assert unit.strings_translated == unit.billed_characters == 0
        assert unit.started_at is None
    # The translator saw only the sampled units' locales and objects.
    sampled_langs = set(done.values_list("target_locale__language_code", flat=True))
    assert {code for code, _texts in recording_translator.calls} <= sampled_langs
    sent = set(recording_translator.texts_sent())
    unsampled_only = {
        c.name
        for c in canary_site.categories
        if not done.filter(object_key=c.translation_key).exists()
    }
    assert not sent & unsampled_only


@pytest.mark.django_db
def test_canary_output_is_saved_as_drafts_even_with_a_publish_policy(
    canary_site, start, task_queue
):
    site = canary_site
    snippet = footer()  # a snippet with drafts: written as a draft
    scope = {
        "pages": [{"id": site.home.pk}, {"id": site.news.pk}, {"id": site.stories[0].pk}],
        "snippets": ["demo.Category"],
        "objects": [["demo.FooterText", str(snippet.pk)]],
    }
    run = start(
        scope=scope,
        source_locale="en",
        target_locales=["fr", "de"],
        canary_size=1000,
        publish_policy=PublishPolicy.PUBLISH,
    )
    task_queue.drain(max_tasks=500)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert run.units.filter(status=UnitStatus.SUCCEEDED).count() == (3 + 3 + 1) * 2
    translated = Page.objects.exclude(locale__language_code="en").filter(depth__gte=2)
    assert translated.count() == 3 * 2
    assert not translated.filter(live=True).exists()
    assert not translated.filter(alias_of__isnull=False).exists()
    footers = FooterText.objects.exclude(locale__language_code="en")
    assert footers.count() == 2
    assert not footers.filter(live=True).exists()
    # Snippets without drafts are not written by a canary at all.
    assert not Category.objects.exclude(locale__language_code="en").exists()


@pytest.mark.django_db
def test_a_canary_never_publishes_untranslated_parent_pages(
    canary_site, start, task_queue, monkeypatch
):
    """Whatever the sample, a canary publishes nothing: not even the parents a page needs."""
    from wagtail_bulk_translate.engine import sampling as canary

    story = canary_site.stories[0]

    def sample_the_story_alone(run_id, size):
        return list(
            Unit.objects.filter(run_id=run_id, object_key=story.translation_key).values_list(
                "pk", flat=True
            )
        )

    monkeypatch.setattr(canary, "choose_sample", sample_the_story_alone)
    run = start(
        scope={"pages": [{"id": story.pk}]},
        source_locale="en",
        target_locales=["fr"],
        canary_size=1,
    )
    task_queue.drain(max_tasks=500)
    run.refresh_from_db()
    assert run.is_finished
    unit = run.units.get(object_key=story.translation_key)
    assert unit.status in (UnitStatus.SUCCEEDED, UnitStatus.SKIPPED, UnitStatus.FAILED)
    if unit.status != UnitStatus.SUCCEEDED:
        assert unit.error_message, "a unit that did not translate must say why"
    # Neither the story nor parents created for it in fr are live copies of English pages.
    live_french = Page.objects.filter(locale__language_code="fr", live=True)
    assert list(live_french.values_list("title", flat=True)) == []


# --- changed mode: the sample is drawn among units that need work -------------------------------


def translate_everything(start, task_queue, site) -> None:
    full = start(scope=site.scope, source_locale="en", target_locales=["fr", "de", "es"])
    task_queue.drain(max_tasks=2000)
    full.refresh_from_db()
    assert full.status == RunStatus.SUCCEEDED


def sampled_pairs(run) -> set:
    return set(sampled_units(run).values_list("object_key", "target_locale__language_code"))


@pytest.mark.django_db
def test_a_changed_mode_canary_samples_edited_and_new_objects_not_unchanged_ones(
    canary_site, start, task_queue
):
    site = canary_site
    translate_everything(start, task_queue, site)
    edited = site.stories[0]
    edited.summary = "A summary written since."
    edited.save_revision().publish()
    added = article(site.news, "A story written since")

    run = start_canary(start, site, 6)
    run_coordinator(task_queue)

    needing_work = {(p.translation_key, c) for p in (edited, added) for c in ("fr", "de", "es")}
    assert sampled_pairs(run) == needing_work
    sampled = list(sampled_units(run).values_list("pk", flat=True))
    pending = run.units.filter(status=UnitStatus.PENDING)
    assert set(pending.values_list("pk", flat=True)) == set(sampled)  # parents exist already
    task_queue.drain(max_tasks=500)
    statuses = run.units.filter(pk__in=sampled).values_list("status", flat=True)
    assert set(statuses) == {UnitStatus.SUCCEEDED}  # translated, none "skipped: unchanged"


@pytest.mark.django_db
def test_objects_without_edit_times_fill_the_sample_after_those_that_need_work(
    canary_site, start, task_queue
):
    """Categories record no edit times: they may need work; unchanged pages never do."""
    site = canary_site
    translate_everything(start, task_queue, site)
    added = article(site.news, "A story written since")

    run = start_canary(start, site, 8)
    run_coordinator(task_queue)

    pairs = sampled_pairs(run)
    assert {(added.translation_key, c) for c in ("fr", "de", "es")} <= pairs
    categories = {c.translation_key for c in site.categories}
    assert len(pairs) == 8
    assert {key for key, _code in pairs} - {added.translation_key} <= categories


@pytest.mark.django_db
def test_nothing_to_do_samples_nothing(canary_site, start, task_queue):
    site = canary_site
    translate_everything(start, task_queue, site)
    site.scope = {"pages": site.scope["pages"]}  # pages only: their edit times are known

    run = start_canary(start, site, 5)
    run_coordinator(task_queue)

    assert choose_sample(run.pk, 5) == []
