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
