"""Small builders for test data: locales, pages of the demo site's types, snippets."""

from __future__ import annotations

import uuid
from typing import Any

from wagtail.models import Locale, Page

from demo.models import ArticleIndexPage, ArticlePage, Category, FooterText, HomePage

LOCALE_CODES = ("en", "fr", "de", "es")


def locales() -> dict[str, Locale]:
    return {code: Locale.objects.get_or_create(language_code=code)[0] for code in LOCALE_CODES}


def rich(html: str) -> str:
    return f"<p>{html}</p>"


def block(block_type: str, value: Any) -> dict[str, Any]:
    return {"type": block_type, "value": value, "id": str(uuid.uuid4())}


def items(values: list[Any]) -> list[dict[str, Any]]:
    return [{"type": "item", "value": value, "id": str(uuid.uuid4())} for value in values]


def home_page(title: str = "Home", **fields: Any) -> HomePage:
    locales()
    root = Page.get_first_root_node()
    return root.add_child(
        instance=HomePage(title=title, slug=f"home-{uuid.uuid4().hex[:6]}", **fields)
    )


def index_page(parent: Page, title: str = "News", **fields: Any) -> ArticleIndexPage:
    return parent.add_child(instance=ArticleIndexPage(title=title, **fields))


def article(parent: Page, title: str = "An article", **fields: Any) -> ArticlePage:
    fields.setdefault("summary", f"Summary of {title}.")
    fields.setdefault(
        "body",
        [
            block("heading", f"About {title}"),
            block("paragraph", rich(f"Read <b>{title}</b> today.")),
        ],
    )
    return parent.add_child(instance=ArticlePage(title=title, **fields))


def category(name: str = "Travel", description: str = "Trips and journeys.") -> Category:
    locales()
    return Category.objects.create(name=name, description=description)


def footer(html: str = "Independent since 1999.", *, live: bool = True) -> FooterText:
    locales()
    snippet = FooterText(body=rich(html), live=live)
    snippet.save()
    revision = snippet.save_revision()
    if live:
        revision.publish()
    return snippet


def subtree(page: Page) -> dict[str, Any]:
    """The scope of a page and its descendants."""
    return {"pages": [{"id": page.pk, "descendants": True}]}


def editor(
    username: str,
    *,
    pages: Any = (),
    page_actions: tuple[str, ...] = ("add", "change"),
    permissions: tuple[str, ...] = (),
    manage_runs: bool = True,
) -> Any:
    """An admin user in a group of their own: ``page_actions`` ("add", "change", "publish")
    on each of ``pages`` (and their subtrees), model ``permissions`` by codename."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission
    from wagtail.models import GroupPagePermission

    user = get_user_model().objects.create_user(username, f"{username}@example.com", "pw")
    group = Group.objects.create(name=f"{username} group")
    codenames = ["access_admin", *permissions, *(["manage_runs"] if manage_runs else [])]
    group.permissions.add(*Permission.objects.filter(codename__in=codenames))
    for page in pages:
        for action in page_actions:
            GroupPagePermission.objects.create(
                group=group, page=page, permission=Permission.objects.get(codename=f"{action}_page")
            )
    user.groups.add(group)
    return user


def hand_translation(page: Page, locale: Locale, title: str) -> Page:
    """The page's translation into ``locale`` (and its missing parents), edited and published
    by hand under ``title``."""
    translation = page.copy_for_translation(locale, copy_parents=True)
    translation.title = title
    translation.save_revision().publish()
    translation.refresh_from_db()
    return translation
