"""The plugin's screens speak the editor's Wagtail admin language."""

from __future__ import annotations

import pytest
from django.urls import reverse
from wagtail.users.models import UserProfile

pytestmark = pytest.mark.django_db


def test_the_runs_listing_in_german_for_an_editor_who_chose_german(admin_client, superuser):
    profile = UserProfile.get_for_user(superuser)
    profile.preferred_language = "de"
    profile.save()

    page = admin_client.get(reverse("wagtail_bulk_translate:index")).content.decode()

    assert "Massenübersetzung" in page
    assert "Neuer Lauf" in page
    assert "New run" not in page
