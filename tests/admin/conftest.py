"""Users of the admin tests: a superuser, an editor with the permission to manage runs and
edit permission on part of the tree, and an editor without the permission."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from wagtail.models import GroupPagePermission, Page

from tests import factories
from wagtail_bulk_translate.models import GlossaryTerm, GlossaryTranslation


def admin_user(django_user_model, username: str, *, manage_runs: bool, pages=()):
    user = django_user_model.objects.create_user(username, f"{username}@example.com", "pw")
    group = Group.objects.create(name=f"{username} group")
    group.permissions.add(Permission.objects.get(codename="access_admin"))
    if manage_runs:
        group.permissions.add(Permission.objects.get(codename="manage_runs"))
    for page in pages:
        for codename in ("add_page", "change_page", "publish_page"):
            GroupPagePermission.objects.create(
                group=group, page=page, permission=Permission.objects.get(codename=codename)
            )
    user.groups.add(group)
    return user


@pytest.fixture
def site_tree(db):
    """Home > News > two articles, and Home > Private > one article (all in English)."""
    factories.locales()
    home = factories.home_page()
    news = factories.index_page(home, "News")
    private = factories.index_page(home, "Private")
    return {
        "home": home,
        "news": news,
        "articles": [factories.article(news, "First"), factories.article(news, "Second")],
        "private": private,
        "secret": factories.article(private, "Secret"),
    }


@pytest.fixture
def superuser(django_user_model):
    return django_user_model.objects.create_superuser("root", "root@example.com", "pw")


@pytest.fixture
def editor(django_user_model, site_tree):
    """Manages runs; may edit the News subtree only."""
    return admin_user(django_user_model, "editor", manage_runs=True, pages=[site_tree["news"]])


@pytest.fixture
def outsider(django_user_model, site_tree):
    """Can use the admin and edit every page, but not manage runs."""
    root = Page.get_first_root_node()
    return admin_user(django_user_model, "outsider", manage_runs=False, pages=[root])


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def outsider_client(client, outsider):
    client.force_login(outsider)
    return client


def make_run(*, units: int = 0, status: str = "running", user=None, canary_size=None, **fields):
    """A run with ``units`` units spread over statuses, created in bulk (no engine involved)."""
    import uuid

    from django.contrib.contenttypes.models import ContentType

    from wagtail_bulk_translate.models import Run, Unit

    locales = factories.locales()
    run = Run.objects.create(
        status=status,
        source_locale=locales["en"],
        scope={"pages": [{"id": 1, "descendants": True}], "snippets": ["demo.Category"]},
        translator_class="wagtail_bulk_translate.translators.pseudo.PseudoTranslator",
        created_by=user,
        canary_size=canary_size,
        **fields,
    )
    targets = [locales["fr"], locales["de"]]
    run.target_locales.set(targets)
    content_type = ContentType.objects.get_for_model(Page)
    statuses = ["succeeded", "failed", "skipped", "pending", "running"]
    Unit.objects.bulk_create(
        [
            Unit(
                run=run,
                position=i // 2,
                content_type=content_type,
                object_id=str(i),
                object_key=uuid.uuid4(),
                target_locale=targets[i % 2],
                status=statuses[i % len(statuses)],
                error_code="translator_error" if statuses[i % len(statuses)] == "failed" else "",
                error_message="It broke." if statuses[i % len(statuses)] == "failed" else "",
                billed_characters=10,
            )
            for i in range(units)
        ],
        batch_size=1000,
    )
    return run


@pytest.fixture
def run_factory(db):
    return make_run


@pytest.fixture
def flagged_run(site_tree, start, task_queue, recording_translator):
    """A publishing run into French of the site; the glossary's "Summary" → "Résumé" is
    ignored by the translator, so every article waits for review as a draft."""
    locales = factories.locales()
    term = GlossaryTerm.objects.create(source_locale=locales["en"], source_term="Summary")
    GlossaryTranslation.objects.create(term=term, target_locale=locales["fr"], target_term="Résumé")
    run = start(
        scope={"pages": [{"id": site_tree["home"].pk, "descendants": True}]},
        source_locale="en",
        target_locales=["fr"],
        publish_policy="publish",
    )
    task_queue.drain()
    return run


@pytest.fixture
def reviewer_client(client, django_user_model, site_tree):
    """Manages runs and may edit and publish every page (both language trees)."""
    user = admin_user(
        django_user_model, "reviewer", manage_runs=True, pages=[Page.get_first_root_node()]
    )
    client.force_login(user)
    client.user = user
    return client
