"""Writing targets right: tree rows under concurrent writers, locks, credits, parent waits."""

from __future__ import annotations

import types
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from wagtail.log_actions import registry as log_registry
from wagtail.models import Page, Revision

from tests import factories as f
from tests.factories import subtree
from wagtail_bulk_translate.engine.coordinator import coordinate
from wagtail_bulk_translate.engine.worker import process_run
from wagtail_bulk_translate.localize import target_writer
from wagtail_bulk_translate.models import Run, Unit
from wagtail_bulk_translate.runs.controls import retry_failed

pytestmark = pytest.mark.django_db


@pytest.fixture
def translate(start, task_queue, recording_translator):
    def _translate(scope, targets=("fr",), **kwargs) -> Run:
        kwargs.setdefault("publish_policy", "publish")
        run = start(scope=scope, source_locale="en", target_locales=list(targets), **kwargs)
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _translate


def page_in(page: Page, code: str) -> Page:
    return Page.objects.get(
        translation_key=page.translation_key, locale__language_code=code, alias_of__isnull=True
    ).specific


def fresh(page: Page) -> Page:
    return Page.objects.get(pk=page.pk)


def during_write_of(monkeypatch, page_pk_getter, action) -> None:
    """Run ``action`` in the middle of writing one target, after the writer loaded it.

    It stands for another worker committing while this one is writing (slowing the write
    down deterministically): ingest_segments runs between loading the target and saving it.
    """
    original = target_writer.ingest_segments
    done = []

    def ingest(source, target, *args, **kwargs):
        result = original(source, target, *args, **kwargs)
        if not done and target.pk is not None and target.pk == page_pk_getter():
            done.append(True)
            action()
        return result

    monkeypatch.setattr(target_writer, "ingest_segments", ingest)


# --- 12.6: a page's child count is never lost ------------------------------------------------


def test_writing_an_existing_parent_keeps_children_added_meanwhile(translate, monkeypatch):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    f.article(news, "First story")
    translate(subtree(home))
    news_fr = page_in(news, "fr")
    children_before = news_fr.get_children().count()

    # Another worker adds children under the French parent while this one rewrites it.
    def add_children() -> None:
        parent = fresh(news_fr)
        for i in range(3):
            f.article(Page.objects.get(pk=parent.pk), f"Concurrent {i}")

    during_write_of(monkeypatch, lambda: news_fr.pk, add_children)
    run = translate({"pages": [{"id": news.pk, "descendants": False}]}, mode="refresh")

    assert run.status == "succeeded"
    news_fr = fresh(news_fr)
    assert news_fr.get_children().count() == children_before + 3
    assert news_fr.numchild == children_before + 3
    assert Page.find_problems() == ([], [], [], [], [])
    assert run.tree_repairs == 0  # the writer itself kept the count right


def test_writing_an_existing_draft_parent_keeps_children_added_meanwhile(translate, monkeypatch):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    translate(subtree(home), publish_policy="draft")
    news_fr = page_in(news, "fr")

    def add_child() -> None:
        f.article(Page.objects.get(pk=news_fr.pk), "Concurrent")

    during_write_of(monkeypatch, lambda: news_fr.pk, add_child)
    run = translate(
        {"pages": [{"id": news.pk, "descendants": False}]}, mode="refresh", publish_policy="draft"
    )

    assert run.status == "succeeded"
    assert fresh(news_fr).numchild == 1 == fresh(news_fr).get_children().count()
    assert Page.find_problems() == ([], [], [], [], [])


def test_run_repairs_wrong_child_counts_in_the_subtrees_it_touched(translate, monkeypatch):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    f.article(news, "First story")
    translate(subtree(home))
    home_fr, news_fr = page_in(home, "fr"), page_in(news, "fr")

    # Something else (an older writer, a crash) left the French home's count wrong.
    def corrupt() -> None:
        Page.objects.filter(pk=home_fr.pk).update(numchild=7)

    during_write_of(monkeypatch, lambda: news_fr.pk, corrupt)
    run = translate({"pages": [{"id": news.pk, "descendants": False}]}, mode="refresh")

    assert fresh(home_fr).numchild == 1 == fresh(home_fr).get_children().count()
    assert Page.find_problems() == ([], [], [], [], [])
    assert run.tree_repairs == 1


# --- 9.12: new targets are never created locked ----------------------------------------------


def test_new_targets_of_a_locked_source_are_not_locked(translate):
    editor = get_user_model().objects.create(username="holder")
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    Page.objects.filter(pk=news.pk).update(locked=True, locked_by=editor, locked_at=timezone.now())

    run = translate(subtree(home))

    assert run.status == "succeeded", list(run.units.values_list("error_code", flat=True))
    news_fr = page_in(news, "fr")
    assert (news_fr.locked, news_fr.locked_by_id, news_fr.locked_at) == (False, None, None)
    assert news_fr.live


def test_an_existing_target_a_person_locked_is_still_skipped(translate):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    translate(subtree(home))
    Page.objects.filter(pk=page_in(news, "fr").pk).update(locked=True)

    run = translate(subtree(home), mode="refresh")

    outcomes = dict(run.units.values_list("object_id", "error_code"))
    assert outcomes[str(news.pk)] == "target_locked"
    assert outcomes[str(home.pk)] == ""


# --- 10.8: targets are credited to the user who started the run ------------------------------


def test_targets_are_credited_to_the_runs_user_and_name_the_run(translate):
    # (a superuser: a run does only what its editor may, see tests/scope/test_permissions.py)
    editor = get_user_model().objects.create(username="editor", is_superuser=True)
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    footer = f.footer("A footer")

    run = translate({**subtree(home), "snippets": ["demo.FooterText"]}, user=editor)

    assert run.status == "succeeded"
    footer_fr = type(footer).objects.get(
        translation_key=footer.translation_key, locale__language_code="fr"
    )
    for target in (page_in(home, "fr"), page_in(news, "fr"), footer_fr):
        revisions = Revision.objects.for_instance(target)
        assert revisions.exists()
        assert set(revisions.values_list("user_id", flat=True)) == {editor.pk}, target
        entries = log_registry.get_logs_for_instance(target)
        assert entries.exists()
        assert set(entries.values_list("user_id", flat=True)) == {editor.pk}, (
            target,
            list(entries.values_list("action", "user_id")),
        )
        named = entries.filter(action="wagtail_bulk_translate.translated")
        assert [e.data["run"] for e in named] == [run.pk]
        assert f"#{run.pk}" in named[0].message


# --- 9.11: a child waits for a parent that can still be retried ------------------------------


@pytest.fixture
def parent_fails_transiently(recording_translator, conf):
    """The translator cannot be reached whenever the "News" title is sent (one object per
    claim and request: the failing request is the parent's alone)."""
    conf(
        MAX_ATTEMPTS=2,
        RETRY_BACKOFF_SECONDS=0,
        RETRY_BACKOFF_MAX_SECONDS=0,
        UNITS_PER_CLAIM=1,
        MAX_UNITS_PER_CLAIM=1,
    )

    def unreachable(text: str) -> str:
        raise ConnectionError("translator unreachable")

    recording_translator.overrides["News"] = unreachable
    return recording_translator


def test_children_of_a_parent_that_failed_for_good_are_skipped_and_come_back_on_retry(
    translate, parent_fails_transiently, task_queue, django_capture_on_commit_callbacks
):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    stories = [f.article(news, f"Story {i}") for i in range(2)]

    run = translate(subtree(home))

    outcomes = {u.object_id: u for u in run.units.all()}
    assert (outcomes[str(news.pk)].status, outcomes[str(news.pk)].error_code) == (
        "failed",
        "translator_error",
    )
    for story in stories:
        unit = outcomes[str(story.pk)]
        assert (unit.status, unit.error_code) == ("skipped", "parent_not_translated")
        assert "News" in unit.error_message
    assert run.status == "partial"

    parent_fails_transiently.overrides.clear()
    with django_capture_on_commit_callbacks(execute=True):
        queued = retry_failed(run.pk)
    assert queued == 3  # the parent and both children
    task_queue.drain()
    run.refresh_from_db()
    assert run.status == "succeeded", list(run.units.values_list("status", "error_code"))
    for story in stories:
        assert page_in(story, "fr").get_parent().pk == page_in(news, "fr").pk


def test_children_wait_while_their_parent_is_being_retried(
    translate, parent_fails_transiently, conf
):
    conf(MAX_ATTEMPTS=3)
    calls = []

    def unreachable_twice(text: str) -> str:
        calls.append(text)
        if len(calls) <= 2:
            raise ConnectionError("translator unreachable")
        return text.upper()

    parent_fails_transiently.overrides["News"] = unreachable_twice
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    stories = [f.article(news, f"Story {i}") for i in range(2)]

    run = translate(subtree(home))

    assert run.status == "succeeded", list(run.units.values_list("status", "error_code"))
    for story in stories:
        assert page_in(story, "fr").get_parent().pk == page_in(news, "fr").pk


# --- 9.10: a busy database never uses up a unit's attempts ----------------------------------


def test_busy_database_errors_are_retried_without_using_up_attempts(translate, conf, monkeypatch):
    from django.db import OperationalError

    from wagtail_bulk_translate.engine import write

    conf(MAX_ATTEMPTS=1, RETRY_BACKOFF_SECONDS=0, RETRY_BACKOFF_MAX_SECONDS=0)
    original = write.write_target
    busy = {"left": 5}

    def sometimes_locked(*args, **kwargs):
        if busy["left"]:
            busy["left"] -= 1
            raise OperationalError("database is locked")
        return original(*args, **kwargs)

    monkeypatch.setattr(write, "write_target", sometimes_locked)
    home = f.home_page("Home")
    f.category("Travel")

    # Objects without parents to wait for: every retry is the busy database's.
    run = translate(
        {"pages": [{"id": home.pk, "descendants": False}], "snippets": ["demo.Category"]},
        ("fr", "de"),
    )

    assert busy["left"] == 0
    assert run.status == "succeeded", list(run.units.values_list("status", "error_message"))
    assert set(run.units.values_list("attempts", flat=True)) == {1}


def test_other_database_errors_still_use_up_attempts(translate, conf, monkeypatch):
    from django.db import OperationalError

    from wagtail_bulk_translate.engine import write

    conf(MAX_ATTEMPTS=2, RETRY_BACKOFF_SECONDS=0, RETRY_BACKOFF_MAX_SECONDS=0)

    def broken(*args, **kwargs):
        raise OperationalError("no such column: demo_articlepage.subtitle")

    monkeypatch.setattr(write, "write_target", broken)
    home = f.home_page("Home")

    run = translate(subtree(home))

    unit = run.units.get()
    assert (unit.status, unit.attempts) == ("failed", 2)


# --- 9.15: Wagtail's reference-index tasks after writing pages with inline children ---------


def run_wagtail_reference_tasks(task_queue, indexed: list | None = None) -> list[str]:
    """Run the reference-index tasks Wagtail queued; returns the errors they raised."""
    errors = []
    for result in list(task_queue.backend.results):
        if result.task.name != "update_reference_index_task":
            continue
        task_queue.backend.results.remove(result)
        if indexed is not None:
            indexed.append(tuple(result.args))
        try:
            result.task.func(*result.args, **result.kwargs)
        except Exception as err:  # collected for the assertion
            errors.append(f"{type(err).__name__}: {err} {result.args}")
    return errors


def replace_inline_children(monkeypatch) -> None:
    """Copy inline children as wagtail-localize does for a model that is not translatable.

    (e.g. bakerydemo's ``BlogPersonRelationship``): new rows each time, the old ones deleted.
    The demo's only inline model is translatable, whose rows wagtail-localize keeps.
    """
    original = target_writer.copy_synchronised_fields

    def copy(source, target):
        original(source, target)
        if hasattr(target, "faqs"):
            source.copy_child_relation("faqs", target)  # pk None: rows are replaced on save

    monkeypatch.setattr(target_writer, "copy_synchronised_fields", copy)


@pytest.mark.parametrize("publish_policy", ["publish", "draft"])
@pytest.mark.parametrize("replaced", [False, True], ids=["kept", "replaced"])
def test_reference_index_tasks_after_writing_inline_children_all_succeed(
    start, task_queue, recording_translator, monkeypatch, publish_policy, replaced
):
    from demo.models import LandingPage, LandingPageFAQ

    if replaced:
        replace_inline_children(monkeypatch)

    home = f.home_page("Home")
    landing = home.add_child(instance=LandingPage(title="Landing"))
    for i in range(3):
        LandingPageFAQ.objects.create(page=landing, question=f"Why {i}?", answer=f.rich("Because"))
    landing.save_revision().publish()
    task_queue.clear()

    def run_and_index(mode: str) -> list[str]:
        run = start(
            scope=subtree(home),
            source_locale="en",
            target_locales=["fr"],
            mode=mode,
            publish_policy=publish_policy,
        )
        errors = []
        while any(
            r.task.module_path.startswith("wagtail_bulk_translate.") for r in task_queue.pending()
        ):
            task_queue.run_first(
                next(
                    r.task.name
                    for r in task_queue.pending()
                    if r.task.module_path.startswith("wagtail_bulk_translate.")
                )
            )
        indexed: list = []
        errors += run_wagtail_reference_tasks(task_queue, indexed)
        run.refresh_from_db()
        assert run.status == "succeeded"
        # The target itself is indexed (with its inline children) after the write.
        assert ("demo", "landingpage", str(page_in(landing, "fr").pk)) in indexed
        return errors

    assert run_and_index("changed") == []
    assert run_and_index("refresh") == []
    target = page_in(landing, "fr")
    assert target.faqs.count() == 3


# --- a child waiting for its parent is woken when the parent is written ----------------------


@pytest.fixture
def child_waiting(start, task_queue, recording_translator, conf):
    """home > news > Story 0, Story 1: while the news unit backed off after an error, the worker
    reached Story 0 and gave it back to wait for its parent; Story 1 backs off too."""
    conf(UNITS_PER_CLAIM=1, MAX_UNITS_PER_CLAIM=1)
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    waiting, backing_off = [f.article(news, f"Story {i}") for i in range(2)]
    run = start(
        scope=subtree(home), source_locale="en", target_locales=["fr"], publish_policy="publish"
    )
    while not coordinate(run.pk).done:
        pass
    unit_of = {u.object_key: u.pk for u in run.units.all()}
    in_five_minutes = timezone.now() + timedelta(minutes=5)
    Unit.objects.filter(pk__in=[unit_of[p.translation_key] for p in (news, backing_off)]).update(
        available_after=in_five_minutes, error_code="translator_error"
    )
    process_run(run.pk, time_budget=60)
    child = Unit.objects.get(pk=unit_of[waiting.translation_key])
    assert child.status == "pending" and child.available_after > timezone.now(), "not waiting"
    Unit.objects.filter(pk=unit_of[news.translation_key]).update(available_after=None)
    return types.SimpleNamespace(
        run=run, news=news, waiting=waiting, backing_off=backing_off, unit_of=unit_of
    )


def test_a_child_waiting_for_its_parent_is_written_right_after_the_parent(child_waiting):
    process_run(child_waiting.run.pk, time_budget=60)  # no time passes: the wait is not served

    child = Unit.objects.get(pk=child_waiting.unit_of[child_waiting.waiting.translation_key])
    assert child.status == "succeeded"
    assert (
        page_in(child_waiting.waiting, "fr").get_parent().pk == page_in(child_waiting.news, "fr").pk
    )


def test_a_child_backing_off_after_an_error_serves_its_back_off(child_waiting):
    process_run(child_waiting.run.pk, time_budget=60)

    unit = Unit.objects.get(pk=child_waiting.unit_of[child_waiting.backing_off.translation_key])
    assert unit.status == "pending"
    assert unit.available_after > timezone.now() + timedelta(minutes=4)


# --- markup beyond the source's never reaches a stored rich-text field ------------------------


class EveryLinkedText(dict):
    """Overrides for every text sent that holds the source's link (``<a id="a1">``)."""

    def __init__(self, change) -> None:
        super().__init__()
        self.change = change

    def get(self, text, default=None):
        return self.change if '<a id="a1">' in text else default


INJECTED = [
    lambda text: text + "<script>alert(1)</script>",
    lambda text: text.replace('<a id="a1">', '<a id="a1" href="javascript:alert(1)">'),
    lambda text: text + ' <a href="javascript:alert(1)">more</a>',
    lambda text: text.replace("<b>", '<b onmouseover="alert(1)">'),
    lambda text: text + '<img src="x" onerror="alert(1)">',
    lambda text: text.replace('<a id="a1">', '<a id="a2">'),  # another link's target
]


@pytest.mark.parametrize("inject", INJECTED)
def test_markup_the_source_does_not_have_is_held_for_review_and_never_stored(
    translate, recording_translator, inject
):
    home = f.home_page("Home")
    story = f.article(
        home,
        "Story",
        body=[f.block("paragraph", f.rich('Visit <a href="/shop/">our shop</a> or <b>this</b>.'))],
    )
    recording_translator.overrides = EveryLinkedText(inject)

    run = translate({"pages": [{"id": story.pk, "descendants": False}]}, publish_policy="draft")

    unit = run.units.get(object_id=str(story.pk))
    # The text goes out twice, then is left in the source language, the page a draft.
    assert (unit.status, unit.error_code) == ("succeeded", "held_for_review")
    assert [flag["code"] for flag in unit.review.flags] == ["invalid_markup"]
    stored = [str(page.specific.body) for page in Page.objects.filter(locale__language_code="fr")]
    stored += [str(r.content) for r in Revision.objects.filter(object_id=str(story.pk))]
    stored += [
        str(r.content)
        for r in Revision.objects.exclude(object_id=str(story.pk)).filter(
            content_type__model="articlepage"
        )
    ]
    for text in stored:
        for payload in ("<script", "javascript:", "onmouseover", "onerror", 'id="a2"'):
            assert payload not in text
