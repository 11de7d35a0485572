"""Fixtures of the translator tests: DeepL and the language-model translator on their fakes."""

from __future__ import annotations

import types

import pytest
from wagtail.models import Locale
from wagtail_localize.machine_translators import get_machine_translator
from wagtail_localize.models import StringTranslation, Translation, TranslationSource
from wagtail_localize.views.edit_translation import apply_machine_translation

from tests import factories as f
from tests.fake_deepl import fake_deepl  # noqa: F401
from wagtail_bulk_translate.api import resume_run
from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.models import Run, RunStatus, UnitStatus
from wagtail_bulk_translate.translators.deepl import DeepLTranslator
from wagtail_bulk_translate.translators.llm import LLMTranslator

LLM_CLASS = "wagtail_bulk_translate.translators.llm.LLMTranslator"
DEEPL_CLASS = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"
EN, DE, FR = (types.SimpleNamespace(language_code=c) for c in ("en", "de", "fr"))


def llm_options(fake, **options) -> dict:
    """Options of an LLMTranslator on ``fake``, with back-off short enough for tests."""
    return {
        "BASE_URL": fake.base_url,
        "API_KEY": "sk-test",
        "MODEL": "fake-model",
        "RETRY_BACKOFF_SECONDS": 0.01,
        "TIMEOUT": 5,
        "PRICES": {"fake-model": {"input": 0.5, "output": 2.0}},
        **options,
    }


@pytest.fixture
def llm(fake_openai):
    """``llm(**options)``: an LLMTranslator on the fake server."""

    def _make(**options) -> LLMTranslator:
        return LLMTranslator(llm_options(fake_openai, **options))

    return _make


def machine_translate_button(editor, translator_class: type) -> set[str]:
    """Press wagtail-localize's "Machine translate" on a French translation of a category, with
    the configured WAGTAILLOCALIZE_MACHINE_TRANSLATOR; returns the strings it stored."""
    category = f.category("Garden tools", "Spades & rakes.")
    source, _ = TranslationSource.get_or_create_from_instance(category)
    fr = Locale.objects.get(language_code="fr")
    source.create_or_update_translation(fr, fallback=True)  # the editor starts from a copy
    translation = Translation.objects.create(source=source, target_locale=fr)
    translator = get_machine_translator()
    assert isinstance(translator, translator_class)
    assert apply_machine_translation(translation.pk, editor, translator)
    return set(
        StringTranslation.objects.filter(locale__language_code="fr").values_list("data", flat=True)
    )


def run_until_settled(task_queue, max_tasks: int = 200) -> None:
    """Run queued tasks, leaving the deferred quota retry alone (it would loop)."""
    for _ in range(max_tasks):
        others = [r for r in task_queue.backend.results if r.task.name != "retry_after_quota"]
        if not others:
            return
        task_queue.backend.results.remove(others[0])
        with task_queue.capture_on_commit(execute=True):
            if others[0].task.module_path.startswith("wagtail_bulk_translate."):
                others[0].task.func(*others[0].args, **others[0].kwargs)
    raise AssertionError("queue did not settle")


def pause_then_resume(start, task_queue, scope, capture_on_commit, lift_quota) -> Run:
    """Start a run into fr and de that pauses on an exhausted quota (no unit failed); then
    ``lift_quota()``, resume it as an editor would and check it succeeds."""
    run = start(scope=scope, source_locale="en", target_locales=["fr", "de"])
    run_until_settled(task_queue)
    run.refresh_from_db()
    assert run.status == RunStatus.PAUSED
    assert run.error_code == ErrorCode.QUOTA_EXCEEDED
    assert not run.units.filter(status=UnitStatus.FAILED).exists()

    lift_quota()
    task_queue.clear()  # the automatic quota retry; the editor resumes instead
    with capture_on_commit(execute=True):
        assert resume_run(run.pk)
    task_queue.drain()

    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert not run.units.filter(status=UnitStatus.FAILED).exists()
    return run


@pytest.fixture
def make(fake_deepl):  # noqa: F811
    """A DeepLTranslator on the fake, with short back-off so retries cost milliseconds."""

    def _make(**options) -> DeepLTranslator:
        defaults = {
            "AUTH_KEY": "test:fx",
            "SERVER_URL": fake_deepl.url,
            "RETRY_BACKOFF_SECONDS": 0.01,
        }
        return DeepLTranslator({**defaults, **options})

    return _make


@pytest.fixture
def deepl_runs(settings, fake_deepl, task_queue):  # noqa: F811
    """Runs started in the test translate with DeepL (the fake)."""
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "RETRY_BACKOFF_SECONDS": 0,
        "TRANSLATOR": {
            "CLASS": DEEPL_CLASS,
            "OPTIONS": {
                "AUTH_KEY": "test:fx",
                "SERVER_URL": fake_deepl.url,
                "RETRY_BACKOFF_SECONDS": 0.01,
            },
        },
    }
    return fake_deepl
