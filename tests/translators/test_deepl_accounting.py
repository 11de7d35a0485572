"""What may have been billed: requests whose answer DeepL lost after it went out are "sent
without an answer"; refused requests (429, 503, a connection never opened) are not."""

from __future__ import annotations

import pytest

from tests import factories as f
from tests.translators.conftest import DE, EN
from wagtail_bulk_translate.errors import AnswerLostError, TransientTranslatorError
from wagtail_bulk_translate.models import RunStatus
from wagtail_bulk_translate.runs.summary import run_summary


def test_an_answer_lost_after_billing_is_counted_and_sent_again(make, fake_deepl):
    fake_deepl.drop_next(processed=True)

    result = make(RETRIES=2).translate_texts(EN, DE, ["Hi", "Bye"])

    assert result.texts == {"Hi": "[DE] HI", "Bye": "[DE] BYE"}
    assert result.unanswered == {"Hi": 1, "Bye": 1}
    assert fake_deepl.billed == 2 * len("HiBye")  # the lost answer was billed too


def test_a_call_whose_last_answer_is_lost_raises_answer_lost(make, fake_deepl):
    fake_deepl.drop_next(times=3, processed=True)

    with pytest.raises(AnswerLostError) as caught:
        make(RETRIES=2).translate_texts(EN, DE, ["Hi"])

    assert caught.value.answer_lost
    assert caught.value.partial.unanswered == {"Hi": 2}  # the two sent again; the last raised


@pytest.mark.parametrize("status", [429, 503])
def test_refused_requests_are_not_unanswered(make, fake_deepl, status):
    fake_deepl.fail_next(status, times=2)
    assert make(RETRIES=2).translate_texts(EN, DE, ["Hi"]).unanswered == {}

    fake_deepl.fail_next(status, times=3)
    with pytest.raises(TransientTranslatorError) as caught:
        make(RETRIES=2).translate_texts(EN, DE, ["Hi"])
    assert not caught.value.answer_lost
    assert caught.value.partial.unanswered == {}


def test_a_server_that_cannot_be_reached_lost_no_answer(make):
    translator = make(SERVER_URL="http://127.0.0.1:9", RETRIES=1)
    with pytest.raises(TransientTranslatorError, match="could not be reached") as caught:
        translator.translate_texts(EN, DE, ["Hi"])
    assert not caught.value.answer_lost
    assert caught.value.partial.unanswered == {}


# --- through the engine -------------------------------------------------------------------------


@pytest.fixture
def plain_pages(task_queue):
    """Texts without markup or entities: characters sent are characters billed."""
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    for title in ("Spring", "Summer", "Autumn"):
        f.article(news, title, summary=f"All about {title}.", body=[])
    task_queue.clear()
    return {"pages": [{"id": home.pk, "descendants": True}]}


def run_summary_of(start, task_queue, scope) -> dict:
    run = start(scope=scope, source_locale="en", target_locales=["fr"], publish_policy="publish")
    task_queue.drain()
    return run_summary(run)


@pytest.mark.django_db
def test_billed_and_sent_without_answer_add_up_to_what_deepl_billed(
    start,
    task_queue,
    deepl_runs,
    plain_pages,
):
    deepl_runs.drop_next(times=2, processed=True)

    summary = run_summary_of(start, task_queue, plain_pages)

    assert summary["status"] == RunStatus.SUCCEEDED
    lost = summary["sent_without_answer"]
    assert lost["texts"] > 0
    assert summary["billed_characters"] + lost["characters"] == deepl_runs.billed


@pytest.mark.django_db
def test_rate_limited_requests_are_not_sent_without_answer(
    start,
    task_queue,
    deepl_runs,
    plain_pages,
):
    deepl_runs.fail_next(429, times=6)

    summary = run_summary_of(start, task_queue, plain_pages)

    assert summary["status"] == RunStatus.SUCCEEDED
    assert summary["sent_without_answer"] == {"texts": 0, "characters": 0}
    assert summary["billed_characters"] == deepl_runs.billed
