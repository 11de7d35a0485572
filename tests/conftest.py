"""Shared fixtures: the task queue the tests drain by hand, settings, the content runs translate."""

from __future__ import annotations

import types

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from wagtail.models import Locale, Site

from tests import factories as f
from tests.fake_deepl import fake_deepl  # noqa: F401  (the fixture, for every test)
from tests.fake_openai import fake_openai  # noqa: F401
from tests.task_queue import DUMMY_BACKEND, TaskQueue
from wagtail_bulk_translate.models import SyncConfiguration


@pytest.fixture
def task_queue(settings, django_capture_on_commit_callbacks):
    settings.TASKS = {"default": {"BACKEND": DUMMY_BACKEND, "QUEUES": []}}
    queue = TaskQueue(django_capture_on_commit_callbacks)
    queue.clear()
    yield queue
    queue.clear()


@pytest.fixture
def count_queries():
    def counter():
        return CaptureQueriesContext(connection)

    return counter


@pytest.fixture
def start(task_queue, django_capture_on_commit_callbacks):
    """start_run() as an editor would call it, with its on-commit enqueue captured."""
    from wagtail_bulk_translate.api import start_run

    def _start(**kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return start_run(**kwargs)

    return _start


@pytest.fixture
def recording_translator(settings):
    """Runs started in this test use RecordingTranslator (pseudo output, calls recorded)."""
    from tests.translator_doubles import RecordingTranslator, translator_setting

    RecordingTranslator.reset()
    settings.WAGTAIL_BULK_TRANSLATE = {
        **getattr(settings, "WAGTAIL_BULK_TRANSLATE", {}),
        "TRANSLATOR": translator_setting(),
    }
    yield RecordingTranslator
    RecordingTranslator.reset()


@pytest.fixture
def conf(settings):
    """Change WAGTAIL_BULK_TRANSLATE keys for this test: ``conf(MAX_ATTEMPTS=1)``."""

    def _conf(**values):
        settings.WAGTAIL_BULK_TRANSLATE = {**settings.WAGTAIL_BULK_TRANSLATE, **values}

    return _conf


@pytest.fixture
def site(task_queue):
    """home > news > Story 0, Story 1, and the category Travel.

    ``scope`` is the page tree (4 objects); ``scope_with_category`` adds the category's model
    (5 objects, ``objects``).
    """
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    stories = [f.article(news, f"Story {i}") for i in range(2)]
    travel = f.category("Travel", "Trips and journeys.")
    task_queue.clear()  # search/reference-index tasks of the fixtures' own writes
    pages = {"pages": [{"id": home.pk, "descendants": True}]}
    return types.SimpleNamespace(
        home=home,
        news=news,
        stories=stories,
        story=stories[0],
        other=stories[1],
        category=travel,
        objects=[home, news, *stories, travel],
        scope=pages,
        scope_with_category={**pages, "snippets": ["demo.Category"]},
    )


@pytest.fixture
def begin(start, site, recording_translator):
    """Start a run of ``site`` (its page tree unless ``scope`` says otherwise) from en."""

    def _begin(locales=("fr", "de"), scope=None, **kwargs):
        scope = scope or site.scope
        return start(scope=scope, source_locale="en", target_locales=list(locales), **kwargs)

    return _begin


@pytest.fixture
def three_pages():
    """en home > news > one article ("A quiet story"), and the demo's locales."""
    home = f.home_page()
    news = f.index_page(home)
    story = f.article(news, title="A quiet story")
    return types.SimpleNamespace(home=home, news=news, article=story, locales=f.locales())


# --- automatic sync: a site of the ``site`` fixture's pages, synced into fr and de ----------


@pytest.fixture
def publisher(db):
    return get_user_model().objects.create_user("publisher", password="x", is_superuser=True)


@pytest.fixture
def synced(site, conf, recording_translator, task_queue, publisher):
    """Sync on (window 0 unless a test sets one), ``site``'s tree synced into fr and de."""
    conf(SYNC_ENABLED=True, SYNC_WINDOW_SECONDS=0)
    wagtail_site = Site.objects.create(hostname="synced.test", root_page=site.home, port=80)
    configuration = SyncConfiguration.objects.create(site=wagtail_site)
    configuration.target_locales.set(Locale.objects.filter(language_code__in=["fr", "de"]))
    task_queue.clear()
    return types.SimpleNamespace(site=wagtail_site, configuration=configuration, **vars(site))


@pytest.fixture
def publish(django_capture_on_commit_callbacks, publisher):
    """Publish a page (or a snippet with drafts) as the publisher, on-commit work executed."""

    def _publish(instance, *, title=None, user=publisher):
        if title is not None:
            instance.title = title
        with django_capture_on_commit_callbacks(execute=True):
            instance.save_revision(user=user).publish(user=user)
        return instance

    return _publish


# --- permissions: a two-locale tree and editors limited to one of its languages ------------


@pytest.fixture
def bilingual(task_queue):
    """en Home > News > Story, Category "Travel"; in French, Home and News translated and
    edited by hand (live), Story not yet. ``english_editor`` may add and edit the English tree
    (no publish anywhere, no French page); ``french_editor`` may add, edit and publish the
    French tree only."""
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    story = f.article(news, "Story")
    fr = f.locales()["fr"]
    news_fr = f.hand_translation(news, fr, "Nouvelles, écrites à la main")
    home_fr = news_fr.get_parent().specific
    task_queue.clear()
    return types.SimpleNamespace(
        home=home,
        news=news,
        story=story,
        fr=fr,
        home_fr=home_fr,
        news_fr=news_fr,
        category=f.category("Travel"),
        scope={"pages": [{"id": home.pk, "descendants": True}]},
        english_editor=f.editor("english", pages=[home]),
        french_editor=f.editor(
            "french", pages=[home_fr], page_actions=("add", "change", "publish")
        ),
    )
