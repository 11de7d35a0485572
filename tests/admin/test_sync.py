"""The Automatic sync screen: guarded by ``manage_runs``, configures a site, switches pause and
resume (audit-logged), and the runs listing filters automatic runs."""

from __future__ import annotations

import pytest
from django.urls import reverse
from wagtail.models import Locale, ModelLogEntry, Site

from tests.admin.conftest import admin_user
from wagtail_bulk_translate.models import Run, SyncConfiguration, SyncSwitch

pytestmark = pytest.mark.django_db
INDEX = "wagtail_bulk_translate_sync:index"


@pytest.fixture
def manager(django_user_model):
    return admin_user(django_user_model, "manager", manage_runs=True)


@pytest.fixture
def bystander(django_user_model):
    return admin_user(django_user_model, "bystander", manage_runs=False)


def test_the_screen_needs_the_permission(client, synced, bystander):
    client.force_login(bystander)
    assert client.get(reverse(INDEX)).status_code == 403
    assert client.post(reverse("wagtail_bulk_translate_sync:pause_all")).status_code == 403
    assert not SyncSwitch.objects.filter(paused=True).exists()


def test_the_screen_lists_sites_and_what_waits(client, synced, publish, conf, manager):
    conf(SYNC_WINDOW_SECONDS=300)
    publish(synced.story, title="Waiting")
    client.force_login(manager)
    response = client.get(reverse(INDEX))
    html = response.content.decode()
    assert response.status_code == 200
    assert "synced.test" in html and "de, fr" in html
    assert "1 change waiting" in html
    assert 'data-bt-sync-state="on"' in html


def test_pause_and_resume_all_are_audit_logged(client, synced, manager):
    client.force_login(manager)
    response = client.post(reverse("wagtail_bulk_translate_sync:pause_all"))
    assert response.status_code == 302
    assert SyncSwitch.objects.get().paused
    assert 'data-bt-sync-state="paused"' in client.get(reverse(INDEX)).content.decode()

    client.post(reverse("wagtail_bulk_translate_sync:resume_all"))
    assert not SyncSwitch.objects.get().paused
    actions = list(ModelLogEntry.objects.order_by("pk").values_list("action", "user__username"))
    assert actions == [
        ("wagtail_bulk_translate.sync.paused", "manager"),
        ("wagtail_bulk_translate.sync.resumed", "manager"),
    ]


def test_a_site_is_paused_from_its_row(client, synced, manager):
    client.force_login(manager)
    client.post(reverse("wagtail_bulk_translate_sync:pause_site", args=[synced.configuration.pk]))
    assert SyncConfiguration.objects.get().paused
    assert ModelLogEntry.objects.get().action == "wagtail_bulk_translate.sync.site_paused"


def test_a_site_is_configured_through_the_form(client, site, manager):
    wagtail_site = Site.objects.create(hostname="new.test", root_page=site.home, port=80)
    french = Locale.objects.get(language_code="fr")
    client.force_login(manager)
    response = client.post(
        reverse("wagtail_bulk_translate_sync:add"),
        {"site": wagtail_site.pk, "root_page": site.news.pk, "target_locales": [french.pk],
         "snippet_models": ["demo.Category"], "enabled": "on"},
    )  # fmt: skip
    assert response.status_code == 302, response.context["form"].errors
    configuration = SyncConfiguration.objects.get()
    assert configuration.root_page.pk == site.news.pk
    assert configuration.snippet_models == ["demo.Category"]
    assert ModelLogEntry.objects.filter(action="wagtail.create").exists()


def test_the_form_refuses_the_source_locale_and_a_tree_of_another_site(client, site, manager):
    from tests import factories as f

    wagtail_site = Site.objects.create(hostname="new.test", root_page=site.home, port=80)
    elsewhere = f.home_page("Elsewhere")
    english = Locale.objects.get(language_code="en")
    client.force_login(manager)
    response = client.post(
        reverse("wagtail_bulk_translate_sync:add"),
        {"site": wagtail_site.pk, "root_page": elsewhere.pk, "target_locales": [english.pk]},
    )
    errors = response.context["form"].errors
    assert "the source: it cannot be a target" in str(errors["target_locales"])
    assert "Choose a page of new.test" in str(errors["root_page"])
    assert not SyncConfiguration.objects.exists()


def test_the_runs_listing_filters_automatic_runs(client, synced, publish, manager, task_queue):
    publish(synced.story, title="Edited")
    task_queue.run_first("dispatch_sync_changes")
    client.force_login(manager)
    automatic = client.get(reverse("wagtail_bulk_translate:index"), {"origin": "automatic"})
    html = automatic.content.decode()
    run = Run.objects.get()
    assert f"Run #{run.pk}" in html and "data-bt-automatic-run" in html
    admin_only = client.get(reverse("wagtail_bulk_translate:index"), {"origin": "admin"})
    assert f"Run #{run.pk}" not in admin_only.content.decode()
