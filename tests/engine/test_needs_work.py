"""Which units of a "changed" run need work, at any run size and however many glossary changes:
each condition is its own flat query (an OR of one subquery per content type or per change
nested past SQLite's expression depth on the demo's 933 units)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone
from wagtail.models import Locale

from demo.models import ArticlePage, Category, HomePage
from tests import factories as f
from tests.factories import subtree
from wagtail_bulk_translate.engine.needs_work import unit_ids_by_need
from wagtail_bulk_translate.engine.sampling import choose_sample
from wagtail_bulk_translate.models import GlossaryChange, Run, RunStatus, Unit, UnitStatus

pytestmark = pytest.mark.django_db

EXTRA_UNITS = 5_100
GLOSSARY_CHANGES = 1_100


@pytest.fixture
def translated_site(start, task_queue):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    story = f.article(news, "Story about bread", summary="Fresh bread every morning.")
    f.category("Travel")
    scope = {**subtree(home), "snippets": ["demo.Category"]}
    run = start(scope=scope, source_locale="en", target_locales=["fr"], publish_policy="publish")
    task_queue.drain(max_tasks=500)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    return scope, story


def changed_run(start, task_queue, scope) -> Run:
    """A "changed" run over the scope, enumerated, none of its units processed."""
    run = start(scope=scope, source_locale="en", target_locales=["fr"], mode="changed")
    for _ in range(50):
        queued = [r for r in task_queue.pending() if r.task.name == "coordinate_run"]
        if not queued:
            break
        task_queue.backend.results.remove(queued[0])
        with task_queue.capture_on_commit(execute=False):
            queued[0].task.func(*queued[0].args, **queued[0].kwargs)
    task_queue.clear()
    run.refresh_from_db()
    assert run.enumeration_done
    return run


def add_untranslated_units(run: Run, count: int) -> set[int]:
    """Units for objects that have no translation (keys nothing holds), over three types."""
    types = [ContentType.objects.get_for_model(m) for m in (ArticlePage, HomePage, Category)]
    first = run.units.count() + 1
    Unit.objects.bulk_create(
        Unit(
            run=run,
            position=first + n,
            content_type=types[n % len(types)],
            object_id=str(10_000 + n),
            object_key=uuid.uuid4(),
            target_locale=Locale.objects.get(language_code="fr"),
            status=UnitStatus.PENDING,
        )
        for n in range(count)
    )
    return set(run.units.filter(position__gte=first).values_list("pk", flat=True))


def record_glossary_changes(count: int, term_of: str) -> None:
    """Many changes, all after the site's machine translations; one of them touches a text."""
    en, fr = (Locale.objects.get(language_code=code) for code in ("en", "fr"))
    later = timezone.now() + timedelta(minutes=1)
    GlossaryChange.objects.bulk_create(
        GlossaryChange(
            source_locale=en,
            target_locale=fr,
            term=term_of if n == 0 else f"unusedterm{n}",
            changed_at=later,
        )
        for n in range(count)
    )


def test_a_big_run_with_many_glossary_changes_is_sorted_by_need(translated_site, start, task_queue):
    scope, story = translated_site
    run = changed_run(start, task_queue, scope)
    untranslated = add_untranslated_units(run, EXTRA_UNITS)
    record_glossary_changes(GLOSSARY_CHANGES, term_of="bread")

    needs, maybe = unit_ids_by_need(run)

    story_unit = run.units.get(object_key=story.translation_key)
    of_categories = run.units.filter(content_type=ContentType.objects.get_for_model(Category))
    categories = set(of_categories.values_list("pk", flat=True)) - untranslated
    assert needs == untranslated | {story_unit.pk}  # the glossary change outdated the story
    assert maybe == categories  # translated, no edit times: only extracting tells
    assert run.units.count() > 5_000


def test_the_canary_sampler_works_on_a_big_run(translated_site, start, task_queue):
    scope, _story = translated_site
    run = changed_run(start, task_queue, scope)
    untranslated = add_untranslated_units(run, EXTRA_UNITS)
    record_glossary_changes(GLOSSARY_CHANGES, term_of="bread")

    sample = choose_sample(run.pk, 12)

    assert len(sample) == 12
    assert set(sample) <= untranslated | set(run.units.values_list("pk", flat=True))
    assert choose_sample(run.pk, 12) == sample  # deterministic per run
    sampled_types = set(Unit.objects.filter(pk__in=sample).values_list("content_type", flat=True))
    assert len(sampled_types) == 3  # stratified over the content types that need work
