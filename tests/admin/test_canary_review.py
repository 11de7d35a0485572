"""The canary review: why each unit wrote what it wrote, field labels, filters and pages."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from demo.models import ArticlePage, Category
from tests import factories
from tests.admin.conftest import make_run
from wagtail_bulk_translate.admin.views import canary_review
from wagtail_bulk_translate.models import Unit

pytestmark = pytest.mark.django_db


def review(run) -> str:
    return reverse("wagtail_bulk_translate:canary_review", args=[run.pk])


@pytest.fixture
def finished_canary(site_tree, start, task_queue):
    """A canary over the News tree and the categories (a model without drafts), into French."""
    factories.category("Travel")
    factories.category("Food", "Recipes.")
    run = start(
        scope={
            "pages": [{"id": site_tree["news"].pk, "descendants": True}],
            "snippets": ["demo.Category"],
        },
        source_locale="en",
        target_locales=["fr"],
        canary_size=20,
    )
    task_queue.drain()
    return run


def test_a_unit_that_writes_nothing_says_why(admin_client, finished_canary):
    html = admin_client.get(review(finished_canary)).content.decode()
    category = ContentType.objects.get_for_model(Category)
    units = Unit.objects.filter(run=finished_canary, content_type=category)
    assert units and all(unit.status == "succeeded" and unit.note for unit in units)
    assert html.count("data-bt-sample-note") == units.count()
    assert "has no drafts" in html


def test_fields_show_their_labels_not_paths(admin_client, finished_canary):
    html = admin_client.get(review(finished_canary)).content.decode()
    assert "data-bt-field-label>Title<" in html
    assert ">Body &gt; Paragraph<" in html  # the demo articles' body paragraphs
    assert ">body.paragraph<" not in html


def test_the_review_says_why_the_canary_wrote_fewer_than_its_size(admin_client, finished_canary):
    html = admin_client.get(review(finished_canary)).content.decode()
    outcome = html[html.index("data-bt-canary-outcome") :]
    outcome = outcome[: outcome.index("</div>")]
    # The home page (the parent News needs in French), News, its two articles, two categories.
    assert "6 units sampled for a canary of 20" in outcome
    assert "the scope holds only 6 units" in outcome
    assert "4 translated as drafts" in outcome
    assert "2 translated but not written (their type has no drafts" in outcome


def test_the_outcome_names_skips_and_failures():
    from wagtail_bulk_translate.api import CanaryOutcome

    sentences = canary_review.outcome_sentences(
        CanaryOutcome(
            size=20,
            scope_units=400,
            worked=20,
            written=19,
            stored_only=0,
            in_flight=0,
            skipped={"unchanged": 1},
        )
    )
    assert sentences == [
        "20 units sampled for a canary of 20",
        "19 translated as drafts",
        "1 skipped: unchanged since the last machine translation",
    ]


def test_filter_by_locale_and_type_and_paginate(admin_client, site_tree, monkeypatch):
    monkeypatch.setattr(canary_review, "SAMPLES_PER_PAGE", 3)
    run = make_run(units=10, status="succeeded", canary_size=10)  # fr and de, pages
    article = ContentType.objects.get_for_model(ArticlePage)
    Unit.objects.filter(run=run, position__lt=2).update(content_type=article)
    response = admin_client.get(review(run))
    assert response.content.decode().count("data-bt-sample=") == 3
    assert 'class="pagination"' in response.content.decode()
    second = admin_client.get(review(run) + "?p=4").content.decode()
    assert second.count("data-bt-sample=") == 1

    html = admin_client.get(review(run) + "?locale=fr").content.decode()
    assert html.count("data-bt-sample=") == 3 and "→ de" not in html
    html = admin_client.get(review(run) + f"?content_type={article.pk}").content.decode()
    assert html.count("data-bt-sample=") == 3  # two units per position: four, a page of three
    html = admin_client.get(review(run) + f"?locale=de&content_type={article.pk}").content.decode()
    assert html.count("data-bt-sample=") == 2


def test_review_queries_do_not_grow_with_the_sample(admin_client, site_tree, count_queries):
    small = make_run(units=12, status="succeeded", canary_size=12)
    large = make_run(units=300, status="succeeded", canary_size=300)
    admin_client.get(review(small))  # warm the content type cache
    with count_queries() as few:
        admin_client.get(review(small))
    with count_queries() as many:
        assert admin_client.get(review(large)).status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries)
