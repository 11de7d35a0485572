"""Context for translators that read documents: where each text comes from, at no query cost;
others (DeepL, wagtail-localize translators) see exactly the requests they saw before."""

from __future__ import annotations

import pytest

from tests import factories as f
from tests.factories import subtree
from tests.translator_doubles import (
    RECORDING_TRANSLATOR,
    TOKEN_TRANSLATOR,
    RecordingTranslator,
    TokenTranslator,
)
from wagtail_bulk_translate.engine.context import text_contexts
from wagtail_bulk_translate.engine.prepare import prepare_object
from wagtail_bulk_translate.engine.worker import group_by_object
from wagtail_bulk_translate.models import Run, Unit

pytestmark = pytest.mark.django_db

DEEPL_CLASS = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"


@pytest.fixture
def translate(start, task_queue, conf):
    def _translate(scope, translator, targets=("fr",), mode="changed", **options) -> Run:
        conf(TRANSLATOR={"CLASS": translator, "OPTIONS": options}, UNITS_PER_CLAIM=10)
        run = start(
            scope=scope,
            source_locale="en",
            target_locales=list(targets),
            mode=mode,
            publish_policy="publish",
        )
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _translate


@pytest.fixture
def doubles():
    RecordingTranslator.reset()
    TokenTranslator.reset()
    yield
    RecordingTranslator.reset()
    TokenTranslator.reset()


def nested_body() -> list:
    section = {
        "heading": "Getting there",
        "content": [
            f.block("quote", {"quote": "Take the night train.", "attribution": "A reader"}),
            f.block("facts", f.items(["Two hours by train"])),
        ],
        "cards": f.items(
            [
                {
                    "heading": "By bike",
                    "body": f.rich("Ride along the river."),
                    "link": {"text": "Bike map", "url": "https://example.com/map"},
                }
            ]
        ),
    }
    return [
        f.block("heading", "Before you go"),
        f.block("paragraph", f.rich("Pack <b>light</b>.")),
        f.block("section", section),
    ]


@pytest.fixture
def travel_page(task_queue):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    page = f.article(news, "A trip north", summary="Where to stay.", body=nested_body())
    task_queue.clear()
    return page


def test_each_text_sent_carries_its_object_field_and_place(translate, travel_page, doubles):
    translate(subtree(travel_page), TOKEN_TRANSLATOR)

    sent = {text: c for call in TokenTranslator.contexts for text, c in call.items()}
    assert set(sent) == set(TokenTranslator.texts_sent())  # every text sent, no other
    assert sent["News"].object_url == "/news/"  # its parent, translated first
    key = f"demo.articlepage:{travel_page.pk}"
    context = {text: c for text, c in sent.items() if c.object_key == key}
    about = context["Where to stay."]
    assert about.object_type == "article page"
    assert about.object_title == "A trip north"
    assert about.object_url == f"/news/{travel_page.slug}/"
    fields = {text: c.field for text, c in context.items()}
    assert fields == {
        "A trip north": "Title",
        "Where to stay.": "Summary",
        "Before you go": "Body > Heading",
        "Pack <b>light</b>.": "Body > Paragraph",
        "Getting there": "Body > Section > Heading",
        "Take the night train.": "Body > Section > Content > Quote > Quote",
        "A reader": "Body > Section > Content > Quote > Attribution",
        "Two hours by train": "Body > Section > Content > Key facts",
        "By bike": "Body > Section > Cards > Heading",
        "Ride along the river.": "Body > Section > Cards > Body",
        "Bike map": "Body > Section > Cards > Link > Text",
    }
    in_document_order = sorted(context, key=lambda text: context[text].position)
    assert in_document_order == [
        "A trip north",
        "Where to stay.",
        "Before you go",
        "Pack <b>light</b>.",
        "Getting there",
        "Take the night train.",
        "A reader",
        "Two hours by train",
        "By bike",
        "Ride along the river.",
        "Bike map",
    ]
    # The batches were planned with the same context.
    planned = {text: c for call in TokenTranslator.batch_contexts for text, c in call.items()}
    assert planned == sent


def test_contexts_cost_no_query(travel_page, start, task_queue, conf, doubles, count_queries):
    conf(TRANSLATOR={"CLASS": TOKEN_TRANSLATOR, "OPTIONS": {}})
    run = start(scope=subtree(travel_page), source_locale="en", target_locales=["fr", "de"])
    task_queue.run_first("coordinate_run")
    units = list(Unit.objects.filter(run=run, object_id=str(travel_page.pk)))
    (obj,) = group_by_object(units)
    prepare_object(run, "token", obj)
    texts = [s.data for s in obj.strings]

    with count_queries() as queries:
        contexts = text_contexts(obj.units, texts)

    assert len(queries.captured_queries) == 0
    assert len(contexts) == len(texts) > 5


def test_translators_that_do_not_read_context_see_the_same_requests(translate, task_queue, doubles):
    """Context changes nothing about what is sent: the same texts, once each per locale, in
    the same requests, whether the translator reads context or not."""
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    shared = [f.block("heading", "Practical information")]
    for i in range(4):
        f.article(news, f"Story {i}", summary="Opening hours may change.", body=shared)
    task_queue.clear()

    translate(subtree(home), RECORDING_TRANSLATOR, targets=("fr", "de"))
    translate(subtree(home), TOKEN_TRANSLATOR, targets=("fr", "de"), mode="refresh")

    assert TokenTranslator.calls == RecordingTranslator.calls
    assert TokenTranslator.contexts and all(TokenTranslator.contexts)


def test_deepl_requests_and_characters_are_unchanged(translate, fake_deepl, task_queue, conf):
    """DeepL gets no context: the texts and characters of this site are those it was sent
    before the contract grew context (recorded from the engine before the change). Every level
    of this three-level tree goes out in one request: texts do not wait for their parent page
    to be written (writing still goes parents first)."""
    conf(RETRY_BACKOFF_SECONDS=0)
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    shared = [
        f.block("heading", "Practical information"),
        f.block("paragraph", f.rich('Visit <a href="/shop/">our shop</a>.')),
    ]
    for i in range(3):
        f.article(news, f"Story {i}", summary="Opening hours may change.", body=shared)
    task_queue.clear()

    run = translate(subtree(home), DEEPL_CLASS, AUTH_KEY="test:fx", SERVER_URL=fake_deepl.url)

    requests = [(r.target_lang, sorted(r.texts)) for r in fake_deepl.translate_requests()]
    assert requests == [
        (
            "FR",
            [
                "Home",
                "News",
                "Opening hours may change.",
                "Practical information",
                "Story 0",
                "Story 1",
                "Story 2",
                'Visit <a id="a1">our shop</a>.',
            ],
        ),
    ]
    assert fake_deepl.billed == 90
    assert run.status == "succeeded"
