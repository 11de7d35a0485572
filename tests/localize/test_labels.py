"""Field labels: wagtail-localize field paths read as the edit form names them."""

from __future__ import annotations

import pytest

from demo.models import ArticlePage, Category, LandingPage
from wagtail_bulk_translate.localize.labels import field_label


@pytest.mark.parametrize(
    ("model", "path", "label"),
    [
        (ArticlePage, "title", "Title"),
        (ArticlePage, "body.paragraph", "Body > Paragraph"),
        (ArticlePage, "body.quote.attribution", "Body > Quote > Attribution"),
        (ArticlePage, "body.section.content.facts.item", "Body > Section > Content > Key facts"),
        (ArticlePage, "body.links.item.text", "Body > Links > Text"),
        (LandingPage, "faqs.answer", "FAQ > Answer"),
        (Category, "description", "Description"),
    ],
)
def test_paths_read_as_the_edit_form_names_them(model, path, label):
    assert field_label(model, path) == label


def test_unknown_parts_read_humanised_and_block_ids_are_dropped():
    assert field_label(ArticlePage, "no_such_field") == "No such field"
    assert field_label(ArticlePage, "body.gone_block.text") == "Body > Gone block > Text"
    old_path = "body.7c3e2d0a-1b2c-4d5e-8f90-0123456789ab"
    assert field_label(ArticlePage, old_path) == "Body"
