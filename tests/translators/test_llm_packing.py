"""Packing: an object's texts together, in document order, within both limits."""

from __future__ import annotations

import pytest

from tests.translators.conftest import DE, EN
from wagtail_bulk_translate.translators.base import TextContext
from wagtail_bulk_translate.translators.llm import packing
from wagtail_bulk_translate.translators.llm.markup import protect

# The translator reads the admin's glossary and house style.
pytestmark = pytest.mark.django_db


def where(key: str, position: int, field: str = "Body > Paragraph") -> TextContext:
    title = {"p1": "Spring sale", "p2": "About us"}[key]
    return TextContext(f"wagtailcore.page:{key}", "blog page", title, f"/{key}/", field, position)


CONTEXT = {
    "Second paragraph of the sale.": where("p1", 2),
    "Who we are.": where("p2", 0, "Title"),
    "Spring sale": where("p1", 0, "Title"),
    "First paragraph of the sale.": where("p1", 1),
}


def test_texts_are_grouped_by_object_in_document_order():
    assert packing.document_order(list(CONTEXT), CONTEXT) == [
        "Spring sale",
        "First paragraph of the sale.",
        "Second paragraph of the sale.",
        "Who we are.",
    ]


def test_without_context_texts_keep_their_order():
    texts = ["b", "a", "b", "c"]
    assert packing.document_order(texts, None) == ["b", "a", "c"]


def test_the_item_cap_and_the_character_budget_split_batches():
    texts = [f"Sentence number {i} of the page." for i in range(10)]
    protected = {t: protect(t) for t in texts}
    assert [len(b) for b in packing.pack(texts, None, protected, 10_000, 4)] == [4, 4, 2]
    budget = 2 * packing.item_size(texts[0], None) + 1
    assert [len(b) for b in packing.pack(texts, None, protected, budget, 40)] == [2] * 5
    assert [len(b) for b in packing.pack(texts, None, protected, 1, 40)] == [1] * 10


def test_each_object_goes_under_its_title_with_field_labels(llm, fake_openai):
    result = llm().translate_texts(EN, DE, list(CONTEXT), context=CONTEXT)
    assert set(result.texts) == set(CONTEXT)
    documents = fake_openai.requests[0].batch["documents"]
    assert [(d["type"], d["title"], d["url"]) for d in documents] == [
        ("blog page", "Spring sale", "/p1/"),
        ("blog page", "About us", "/p2/"),
    ]
    assert [(i["field"], i["text"]) for i in documents[0]["items"]] == [
        ("Title", "Spring sale"),
        ("Body > Paragraph", "First paragraph of the sale."),
        ("Body > Paragraph", "Second paragraph of the sale."),
    ]


def test_request_batches_follow_the_same_packing(llm):
    batches = llm(MAX_TEXTS_PER_REQUEST=3).request_batches(EN, DE, list(CONTEXT), context=CONTEXT)
    assert batches == [
        ["Spring sale", "First paragraph of the sale.", "Second paragraph of the sale."],
        ["Who we are."],
    ]
    assert llm().request_batches(EN, DE, ["a", "b"]) == [["a", "b"]]
