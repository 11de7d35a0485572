"""Fixtures of the automatic sync tests: a site of the ``site`` fixture's pages, synced into
fr and de, and publishing as an editor."""

from __future__ import annotations

import types

import pytest
from django.contrib.auth import get_user_model
from wagtail.models import Locale, Site

from wagtail_bulk_translate.models import SyncConfiguration


@pytest.fixture
def editor(db):
    return get_user_model().objects.create_user("publisher", password="x", is_superuser=True)


@pytest.fixture
def synced(site, conf, recording_translator, task_queue, editor):
    """Sync on (window 0 unless a test sets one), ``site``'s tree synced into fr and de."""
    conf(SYNC_ENABLED=True, SYNC_WINDOW_SECONDS=0)
    wagtail_site = Site.objects.create(hostname="synced.test", root_page=site.home, port=80)
    configuration = SyncConfiguration.objects.create(site=wagtail_site)
    configuration.target_locales.set(Locale.objects.filter(language_code__in=["fr", "de"]))
    task_queue.clear()
    return types.SimpleNamespace(site=wagtail_site, configuration=configuration, **vars(site))


@pytest.fixture
def publish(django_capture_on_commit_callbacks, editor):
    """Publish a page (or a snippet with drafts) as the editor, on-commit work executed."""

    def _publish(instance, *, title=None, user=editor):
        if title is not None:
            instance.title = title
        with django_capture_on_commit_callbacks(execute=True):
            instance.save_revision(user=user).publish(user=user)
        return instance

    return _publish
