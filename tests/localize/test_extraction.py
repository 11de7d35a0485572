"""Set-based extraction leaves the rows wagtail-localize's own extraction leaves, in far fewer
queries: every object the demo site seeds is extracted both ways and the tables compared."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from wagtail.models import Page
from wagtail_localize.models import (
    OverridableSegment,
    RelatedObjectSegment,
    String,
    StringSegment,
    Template,
    TemplateSegment,
    TranslatableObject,
    TranslationContext,
    TranslationSource,
)

from demo import models as demo
from demo.content import seed_demo_content
from demo.models import ArticleIndexPage, ArticlePage, Category, HomePage, LandingPage
from tests import factories as f
from wagtail_bulk_translate.localize import extraction
from wagtail_bulk_translate.localize.sources import update_source

pytestmark = pytest.mark.django_db

Extractor = Callable[[Any], tuple[TranslationSource, bool]]
OURS: Extractor = extraction.update_or_create_set_based
THEIRS: Extractor = extraction.update_or_create_with_wagtail_localize


class Rollback(Exception):
    pass


def snapshot() -> dict[str, Counter]:
    """The extraction tables by natural key and value (ids and timestamps left out)."""
    sources = {s.pk: (s.object_id, s.locale_id) for s in TranslationSource.objects.all()}
    contexts = {c.pk: (c.object_id, c.path) for c in TranslationContext.objects.all()}
    strings = dict(String.objects.values_list("pk", "data_hash"))
    templates = dict(Template.objects.values_list("pk", "uuid"))

    def rows(model: Any, *fields: str) -> Counter:
        return Counter(model.objects.values_list(*fields))

    def segments(model: Any, *fields: str) -> Counter:
        return Counter(
            (sources[source_id], contexts[context_id], *values)
            for source_id, context_id, *values in model.objects.values_list(
                "source_id", "context_id", *fields
            )
        )

    return {
        "objects": rows(TranslatableObject, "translation_key", "content_type_id"),
        "sources": rows(
            TranslationSource,
            "object_id",
            "locale_id",
            "specific_content_type_id",
            "object_repr",
            "content_json",
            "schema_version",
        ),
        "strings": rows(String, "locale_id", "data", "data_hash"),
        "contexts": rows(TranslationContext, "object_id", "path", "path_id", "field_path"),
        "templates": rows(Template, "uuid", "template", "template_format", "string_count"),
        "string segments": Counter(
            (sources[s], contexts[c], strings[string], order, attrs)
            for s, c, string, order, attrs in StringSegment.objects.values_list(
                "source_id", "context_id", "string_id", "order", "attrs"
            )
        ),
        "template segments": Counter(
            (sources[s], contexts[c], templates[template], order)
            for s, c, template, order in TemplateSegment.objects.values_list(
                "source_id", "context_id", "template_id", "order"
            )
        ),
        "related segments": segments(RelatedObjectSegment, "object_id", "order"),
        "overridable segments": segments(OverridableSegment, "data_json", "order"),
    }


def kept_segment_ids() -> set[tuple[str, int]]:
    return {
        (model.__name__, pk)
        for model in (StringSegment, TemplateSegment, RelatedObjectSegment, OverridableSegment)
        for pk in model.objects.values_list("pk", flat=True)
    }


def rolled_back(action: Callable[[], Any]) -> Any:
    """What ``action`` returns, with every write it made undone."""
    result = None
    try:
        with transaction.atomic():
            result = action()
            raise Rollback
    except Rollback:
        pass
    return result


def fresh(obj: Any) -> Any:
    """The object as a worker loads it (nothing cached from an earlier extraction)."""
    model, pk, draft = obj
    instance = model._default_manager.get(pk=pk)
    return instance.get_latest_revision_as_object() if draft else instance


def extract_all(extract: Extractor, objects: list) -> dict[str, Counter]:
    for obj in objects:
        extract(fresh(obj))
    return snapshot()


@pytest.fixture
def demo_objects() -> list[tuple[Any, Any, bool]]:
    """Every translatable object of a small demo site, plus the drafts workers may extract."""
    seed_demo_content(pages=14)
    pages = [p.specific for p in Page.objects.filter(depth__gt=1, locale__language_code="en")]
    assert {type(p) for p in pages} == {HomePage, ArticleIndexPage, ArticlePage, LandingPage}
    snippets = [
        *Category.objects.all(),
        # Imported through the module: pytest would take a class named Test* for tests.
        *demo.Testimonial.objects.all(),
        *demo.FooterText.objects.all(),
        *demo.SiteBranding.objects.all(),
    ]
    drafts = [p for p in pages if p.has_unpublished_changes]
    assert drafts and snippets
    return [
        *((type(p), p.pk, False) for p in [*pages, *snippets]),
        *((type(p), p.pk, True) for p in drafts),
    ]


def test_the_whole_demo_site_extracts_to_the_same_rows(demo_objects):
    ours = rolled_back(lambda: extract_all(OURS, demo_objects))
    theirs = rolled_back(lambda: extract_all(THEIRS, demo_objects))

    assert ours == theirs
    # Every kind of row is compared, and later objects reuse strings earlier ones stored.
    assert all(ours.values()), [name for name, rows in ours.items() if not rows]
    sources_per_string = Counter(
        string for string, _source in {(row[2], row[0]) for row in ours["string segments"]}
    )
    assert max(sources_per_string.values()) > 1


def test_each_demo_object_extracts_to_the_same_rows(demo_objects):
    for obj in demo_objects:
        ours = rolled_back(lambda obj=obj: extract_all(OURS, [obj]))
        theirs = rolled_back(lambda obj=obj: extract_all(THEIRS, [obj]))

        assert ours == theirs, obj


def edit_first_paragraph(page: ArticlePage) -> None:
    paragraph = next(block for block in page.body if block.block_type == "paragraph")
    index = list(page.body).index(paragraph)
    page.body[index] = ("paragraph", f.rich("A <b>rewritten</b> opening paragraph."))
    page.save_revision().publish()


@pytest.mark.parametrize("first", [OURS, THEIRS], ids=["first-ours", "first-theirs"])
def test_re_extraction_after_an_edit_gives_the_same_rows(demo_objects, first):
    page = ArticlePage.objects.filter(locale__language_code="en").first()
    first(page)
    old_strings = set(String.objects.values_list("data_hash", flat=True))
    old_segments = kept_segment_ids()
    edit_first_paragraph(ArticlePage.objects.get(pk=page.pk))

    def re_extract(extract: Extractor) -> tuple[dict, set, bool]:
        _source, created = extract(ArticlePage.objects.get(pk=page.pk))
        return snapshot(), kept_segment_ids(), created

    ours, ours_ids, ours_created = rolled_back(lambda: re_extract(OURS))
    theirs, theirs_ids, theirs_created = rolled_back(lambda: re_extract(THEIRS))

    assert ours == theirs
    assert ours_created is theirs_created is False
    # Unchanged segments keep their rows, the edited ones are replaced, old strings stay.
    kept = ours_ids & old_segments
    assert kept == theirs_ids & old_segments
    assert kept and kept != old_segments
    assert old_strings <= {data_hash for _locale, _data, data_hash in ours["strings"]}
    assert any("rewritten" in data for _locale, data, _hash in ours["strings"])


@pytest.mark.parametrize("extract", [OURS, THEIRS], ids=["ours", "theirs"])
def test_unchanged_content_is_not_extracted_again(demo_objects, extract):
    page = ArticlePage.objects.filter(locale__language_code="en").first()
    source, created = extract(page)
    before = (snapshot(), kept_segment_ids())

    again, created_again = extract(ArticlePage.objects.get(pk=page.pk))

    assert created and not created_again
    assert again.last_updated_at == source.last_updated_at
    assert (snapshot(), kept_segment_ids()) == before


def test_update_source_falls_back_on_an_unverified_version(demo_objects, monkeypatch, caplog):
    def refuse(instance: Any) -> None:
        raise AssertionError("the set-based path ran on an unverified version")

    monkeypatch.setattr(extraction, "installed_wagtail_localize_version", lambda: "1.15.0")
    monkeypatch.setattr(extraction, "update_or_create_set_based", refuse)
    extraction.version_is_verified.cache_clear()
    page = ArticlePage.objects.filter(locale__language_code="en").first()

    with caplog.at_level(logging.DEBUG, logger=extraction.__name__):
        source = update_source(page)
        update_source(Category.objects.first())

    assert source.stringsegment_set.exists()
    assert not extraction.uses_set_based_extraction()
    messages = [r.getMessage() for r in caplog.records if r.name == extraction.__name__]
    assert messages == [
        "wagtail-localize 1.15.0: its own source extraction (the set-based one is verified "
        "on 1.14.x only)."
    ]


def test_update_source_is_set_based_on_the_verified_version(demo_objects, monkeypatch):
    def refuse(instance: Any) -> None:
        raise AssertionError("wagtail-localize's own extraction ran on a verified version")

    monkeypatch.setattr(extraction, "installed_wagtail_localize_version", lambda: "1.14.5")
    monkeypatch.setattr(TranslationSource, "update_or_create_from_instance", refuse)
    page = ArticlePage.objects.filter(locale__language_code="en").first()

    source = update_source(page)

    assert extraction.uses_set_based_extraction()
    assert source.stringsegment_set.exists()


def count_queries(extract: Extractor, obj: tuple) -> int:
    def measure() -> int:
        instance = fresh(obj)
        with CaptureQueriesContext(connection) as queries:
            extract(instance)
        return len(queries)

    return rolled_back(measure)


def test_set_based_extraction_uses_a_fraction_of_the_queries(demo_objects):
    article = next(obj for obj in demo_objects if obj[0] is ArticlePage)

    ours, theirs = count_queries(OURS, article), count_queries(THEIRS, article)

    print(f"queries to extract a demo article: wagtail-localize {theirs}, set-based {ours}")
    assert ours * 4 <= theirs
