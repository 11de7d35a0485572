"""A claim keeps its lease while a step outlives it, and stops paying once it lost it.

The first test is transactional: the lease keeper renews from a thread of its own, on its own
database connection, which only sees committed rows.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from typing import ClassVar

import pytest
from wagtail.models import Locale, Page

from tests import factories as f
from tests.translator_doubles import RecordingTranslator
from wagtail_bulk_translate.engine import claims
from wagtail_bulk_translate.models import Unit, UnitStatus

OUTLIVING = "tests.engine.test_keepalive.OutlivingTranslator"
TAKEN_OVER = "tests.engine.test_keepalive.TakenOverTranslator"


class OutlivingTranslator(RecordingTranslator):
    """Each call outlives the lease (``LEASE_SECONDS`` 2) twice over, then plays another worker
    trying to take the claim's units over, as one would after the lease expired."""

    taken_by_others: ClassVar[list[int]] = []

    def translate_texts(self, source_locale, target_locale, texts):
        time.sleep(4.5)
        run_id = Unit.objects.filter(status=UnitStatus.RUNNING).values_list("run_id").first()[0]
        claims.recover_expired_leases(Unit.objects.all())
        _token, units = claims.claim_units(run_id, 10)
        type(self).taken_by_others.extend(unit.pk for unit in units)
        return super().translate_texts(source_locale, target_locale, texts)


class TakenOverTranslator(RecordingTranslator):
    """One text per request; after the first request another worker holds the claim's units
    (its lease was lost while this worker was frozen)."""

    def request_batches(self, source_locale, target_locale, texts):
        return [[text] for text in texts]

    def translate_texts(self, source_locale, target_locale, texts):
        result = super().translate_texts(source_locale, target_locale, texts)
        Unit.objects.filter(status=UnitStatus.RUNNING).update(lease_token=uuid.uuid4())
        return result


@pytest.fixture
def one_page(task_queue):
    home = f.home_page("Home")
    story = f.article(f.index_page(home, "News"), "A quiet story")
    f.locales()
    task_queue.clear()
    return story


def start_translation(start, story, translator_class, conf) -> None:
    conf(TRANSLATOR={"CLASS": translator_class, "OPTIONS": {}})
    start(
        scope={"pages": [{"id": story.pk}]},
        source_locale="en",
        target_locales=["fr", "de"],
        mode="changed",
        publish_policy="publish",
    )


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_call_outliving_the_lease_keeps_its_units_and_is_paid_once(
    one_page, start, task_queue, conf
):
    RecordingTranslator.reset()
    OutlivingTranslator.taken_by_others = []
    conf(LEASE_SECONDS=2, UNITS_PER_CLAIM=10)
    start_translation(start, one_page, OUTLIVING, conf)

    task_queue.drain()

    assert OutlivingTranslator.taken_by_others == []
    units = Unit.objects.all()
    assert {unit.status for unit in units} == {UnitStatus.SUCCEEDED}
    assert {unit.attempts for unit in units} == {1}
    sent = Counter((code, text) for code, texts in RecordingTranslator.calls for text in texts)
    assert sent and max(sent.values()) == 1, "a text was paid for twice"
    RecordingTranslator.reset()


@pytest.mark.django_db
def test_a_worker_that_lost_its_lease_sends_no_more_requests_and_writes_nothing(
    one_page, start, task_queue, conf
):
    RecordingTranslator.reset()
    start_translation(start, one_page, TAKEN_OVER, conf)

    task_queue.drain()

    # The first request of the first locale went out; then the units were someone else's.
    assert len(RecordingTranslator.calls) == 1
    assert set(Unit.objects.values_list("status", flat=True)) == {UnitStatus.RUNNING}
    written = Page.objects.filter(
        translation_key=one_page.translation_key,
        locale__in=Locale.objects.exclude(language_code="en"),
        alias_of__isnull=True,
    )
    assert not written.exists()
    RecordingTranslator.reset()
