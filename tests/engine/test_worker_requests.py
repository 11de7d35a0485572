"""Full requests: a locale's texts go out in as few provider requests as the translator's
limits allow, across objects and tree levels, and whatever size the claims start at."""

from __future__ import annotations

import math

import pytest

from tests import factories as f
from tests.factories import subtree
from wagtail_bulk_translate.api import run_summary

pytestmark = pytest.mark.django_db

DEEPL_CLASS = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"


@pytest.fixture
def deep_tree(task_queue):
    """home > two sections > 30 articles each: four tree levels, none translated yet."""
    home = f.home_page("Home")
    for section in ("News", "Guides"):
        index = f.index_page(home, section)
        for n in range(30):
            f.article(index, f"{section} story {n}", summary=f"Summary {n} of {section}.")
    task_queue.clear()
    return subtree(home)


@pytest.mark.parametrize("units_per_claim", [1, 4, 25])
def test_requests_are_full_across_tree_levels_whatever_the_claim_size(
    start, task_queue, deep_tree, conf, fake_deepl, units_per_claim
):
    conf(
        RETRY_BACKOFF_SECONDS=0,
        UNITS_PER_CLAIM=units_per_claim,
        TRANSLATOR={
            "CLASS": DEEPL_CLASS,
            "OPTIONS": {"AUTH_KEY": "test:fx", "SERVER_URL": fake_deepl.url},
        },
    )

    run = start(scope=deep_tree, source_locale="en", target_locales=["fr", "de"])
    task_queue.drain(max_tasks=2000)

    run.refresh_from_db()
    assert run.status == "succeeded"
    for lang in ("FR", "DE"):
        requests = [r for r in fake_deepl.translate_requests() if r.target_lang == lang]
        texts = sum(len(r.texts) for r in requests)
        assert len(texts_of(requests)) == texts  # each text once
        assert len(requests) == math.ceil(texts / 50), [len(r.texts) for r in requests]
    assert run_summary(run)["billed_characters"] == fake_deepl.billed


def texts_of(requests) -> set[str]:
    return {text for r in requests for text in r.texts}


def test_claims_grow_only_up_to_their_cap(start, task_queue, deep_tree, conf, fake_deepl):
    conf(
        RETRY_BACKOFF_SECONDS=0,
        UNITS_PER_CLAIM=4,
        MAX_UNITS_PER_CLAIM=8,
        TRANSLATOR={
            "CLASS": DEEPL_CLASS,
            "OPTIONS": {"AUTH_KEY": "test:fx", "SERVER_URL": fake_deepl.url},
        },
    )

    run = start(scope=deep_tree, source_locale="en", target_locales=["fr"])
    task_queue.drain(max_tasks=2000)

    run.refresh_from_db()
    assert run.status == "succeeded"
    sizes = [len(r.texts) for r in fake_deepl.translate_requests()]
    assert max(sizes) <= 8 * 4  # eight articles' texts at most (four each)
    assert len(sizes) >= math.ceil(63 / 8)  # the 63 pages, eight at most per claim


def test_a_growing_claim_never_takes_a_unit_isolated_after_a_crash(
    start, task_queue, deep_tree, conf
):
    """A unit back from a dead worker carries a claim limit; a claim that grows leaves it to a
    claim of its own size."""
    from wagtail_bulk_translate.engine import claims
    from wagtail_bulk_translate.engine.coordinator import coordinate

    conf(UNITS_PER_CLAIM=4)
    run = start(scope=deep_tree, source_locale="en", target_locales=["fr"])
    while not coordinate(run.pk).done:
        pass
    isolated = run.units.order_by("position")[10]
    run.units.filter(pk=isolated.pk).update(claim_limit=1)

    token, first = claims.claim_units(run.pk, 4)
    grown: list = []
    for _ in range(30):
        _token, more = claims.claim_units(run.pk, 4, token=token)
        grown += more
    assert isolated.pk not in {u.pk for u in [*first, *grown]}
    assert len(first) + len(grown) == run.units.count() - 1
    assert claims.claim_units(run.pk, 4)[1] == [run.units.get(pk=isolated.pk)]
