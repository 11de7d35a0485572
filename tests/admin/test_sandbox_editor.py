"""The demo's editor (not a superuser) can use the whole admin of the plugin."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from wagtail.models import Locale

from demo.content import ensure_editor_user
from tests import factories
from wagtail_bulk_translate.admin.permissions import check_user_can_translate
from wagtail_bulk_translate.api import whole_site_scope

pytestmark = pytest.mark.django_db


def test_demo_editor_manages_runs_over_the_whole_site(client):
    factories.article(factories.index_page(factories.home_page()), "Hello")
    factories.category()
    ensure_editor_user()
    ensure_editor_user()  # idempotent, as `make serve` runs it every time
    editor = get_user_model().objects.get(username="editor")
    assert not editor.is_superuser
    english = Locale.objects.get(language_code="en")
    check_user_can_translate(editor, whole_site_scope(english), english)  # no refusal
    client.force_login(editor)
    home = client.get(reverse("wagtailadmin_home")).content.decode()
    assert reverse("wagtail_bulk_translate:index") in home and "data-bt-dashboard-panel" in home
    assert client.get(reverse("wagtail_bulk_translate:add")).status_code == 200
