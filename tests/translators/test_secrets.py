"""Credentials are never stored or shown, wherever the settings put them.

The end-to-end tests run real runs (language model and DeepL, on their fake servers) with known
key strings in every place the README allows a key, change the keys and resume, then look for
the strings in every text of every table, in the logs, on every admin page of the runs and in
the command line's output and JSON.
"""

from __future__ import annotations

import json
import logging
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from wagtail_bulk_translate.api import pause_run, resume_run
from wagtail_bulk_translate.engine.translator_settings import describe_change
from wagtail_bulk_translate.models import Run, RunStatus
from wagtail_bulk_translate.translators.loading import build_translator, pinned_translator
from wagtail_bulk_translate.translators.secrets import (
    credential_values,
    looks_like_credential,
    merge_credentials,
    redact,
    split_credentials,
)

LLM_CLASS = "wagtail_bulk_translate.translators.llm.LLMTranslator"
DEEPL_CLASS = "wagtail_bulk_translate.translators.deepl.DeepLTranslator"


# --- recognising credentials ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["API_KEY", "AUTH_KEY", "api-key", "x-api-key", "Authorization", "key", "token",
     "client_secret", "Ocp-Apim-Subscription-Key", "password", "Cookie", "sig-token"],
)  # fmt: skip
def test_names_that_look_like_credentials(name):
    assert looks_like_credential(name)


@pytest.mark.parametrize("name", ["MODEL", "BASE_URL", "api-version", "x-trace-id", "TIMEOUT"])
def test_names_that_do_not(name):
    assert not looks_like_credential(name)


def test_headers_query_parameters_and_urls_with_credentials_stay_out():
    options = {
        "MODEL": "m",
        "API_KEY": "sk-1",
        "DEFAULT_HEADERS": {"api-key": "az-1", "x-trace": "on"},
        "DEFAULT_QUERY": {"api-version": "2024-10-21", "key": "q-1"},
        "BASE_URL": "https://user:pw-1@example.com/v1",
        "GLOSSARY": {"TERMS": {"de": {"key": "Schlüssel"}}},  # a term, two levels down
    }

    public, credentials = split_credentials(options)

    assert public == {
        "MODEL": "m",
        "DEFAULT_HEADERS": {"x-trace": "on"},
        "DEFAULT_QUERY": {"api-version": "2024-10-21"},
        "GLOSSARY": {"TERMS": {"de": {"key": "Schlüssel"}}},
    }
    assert merge_credentials(public, credentials) == options


def test_a_url_with_a_credential_query_parameter_is_a_credential():
    public, credentials = split_credentials({"SERVER_URL": "https://x.test/?token=t-123456"})
    assert public == {}
    assert credential_values(credentials) == ["https://x.test/?token=t-123456", "t-123456"]


def test_redact_replaces_every_credential_value():
    assert redact("key sk-abcdef refused", ["sk-abcdef"]) == "key [credential] refused"


def test_a_change_of_credentials_is_named_without_values():
    old = {"MODEL": "a", "DEFAULT_HEADERS": {"api-key": "AZ-OLD-1"}}
    new = {"MODEL": "b", "DEFAULT_HEADERS": {"api-key": "AZ-NEW-2"}}

    changes = describe_change(LLM_CLASS, old, LLM_CLASS, new)

    assert changes == ["MODEL 'a' → 'b'", "credentials changed"]


@pytest.mark.django_db
def test_a_run_is_built_with_todays_credentials_put_back_into_its_options(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "TRANSLATOR": {
            "CLASS": LLM_CLASS,
            "OPTIONS": {"MODEL": "m", "API_KEY": "sk-1", "DEFAULT_QUERY": {"key": "q-1", "v": "2"}},
        },
    }
    class_path, pinned = pinned_translator()

    translator = build_translator(class_path, pinned)

    assert pinned == {"MODEL": "m", "DEFAULT_QUERY": {"v": "2"}}
    assert translator.options["DEFAULT_QUERY"] == {"key": "q-1", "v": "2"}
    assert translator.options["API_KEY"] == "sk-1"


# --- end to end: runs, a key change and resume, then look everywhere ----------------------------


def llm_options(fake, generation: int) -> dict:
    return {
        "BASE_URL": f"{fake.url}/openai/deployments/fake-model",
        "MODEL": "fake-model",
        "API_KEY": f"SK-APIKEY-{generation}111",
        "DEFAULT_HEADERS": {"api-key": f"AZ-HEADER-{generation}111", "x-trace": "public"},
        "DEFAULT_QUERY": {"api-version": "2024-10-21", "key": f"QUERY-KEY-{generation}111"},
        "RETRY_BACKOFF_SECONDS": 0.01,
        "TIMEOUT": 5,
    }


def deepl_options(fake, generation: int) -> dict:
    return {
        "AUTH_KEY": f"DEEPL-AUTHKEY-{generation}111:fx",
        "SERVER_URL": fake.url,
        "RETRY_BACKOFF_SECONDS": 0.01,
    }


def known_keys(options_of, fake) -> list[str]:
    values = []
    for generation in (1, 2):
        _public, credentials = split_credentials(options_of(fake, generation))
        values += credential_values(credentials)
    return values


def use_translator(settings, class_path: str, options: dict) -> None:
    settings.WAGTAIL_BULK_TRANSLATE = {
        **settings.WAGTAIL_BULK_TRANSLATE,
        "RETRY_BACKOFF_SECONDS": 0,
        "TRANSLATOR": {"CLASS": class_path, "OPTIONS": options},
    }


def run_with_a_key_change(start, task_queue, settings, site, class_path, options_of, fake) -> Run:
    """Start a run, pause it, change every key, resume it and let it finish."""
    use_translator(settings, class_path, options_of(fake, 1))
    run = start(scope=site.scope_with_category, source_locale="en", target_locales=["fr"])
    task_queue.run_next()  # the coordinator's first tick: units exist, some work queued
    pause_run(run.pk)
    use_translator(settings, class_path, options_of(fake, 2))
    with task_queue.capture_on_commit(execute=True):
        assert resume_run(run.pk)
    task_queue.drain()
    run.refresh_from_db()
    return run


def every_text_in_the_database() -> str:
    """Every value of every row of every table, as text."""
    texts = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            texts.extend(repr(row) for row in cursor.fetchall())
    return "\n".join(texts)


def every_admin_page_of(client, run: Run) -> str:
    urls = [
        reverse("wagtail_bulk_translate:index"),
        reverse("wagtail_bulk_translate:index_results"),
        reverse("wagtail_bulk_translate:inspect", args=[run.pk]),
        reverse("wagtail_bulk_translate:status", args=[run.pk]),
        reverse("wagtail_bulk_translate:canary_review", args=[run.pk]),
        reverse("wagtail_bulk_translate_review:index"),
        reverse("wagtail_bulk_translate:add"),
    ]
    pages = []
    for url in urls:
        response = client.get(url)
        assert response.status_code in (200, 302), url
        pages.append(response.content.decode())
    return "\n".join(pages)


def every_command_output_of(run: Run) -> str:
    out = StringIO()
    for args in (
        ["status", str(run.pk)],
        ["status", str(run.pk), "--json"],
        ["units", str(run.pk), "--json"],
        ["list", "--json"],
        ["list"],
    ):
        call_command("bulk_translate", *args, stdout=out, stderr=out)
    return out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("class_path", "options_of", "fake_name"),
    [(LLM_CLASS, llm_options, "fake_openai"), (DEEPL_CLASS, deepl_options, "fake_deepl")],
    ids=["llm", "deepl"],
)
def test_no_key_is_stored_logged_or_shown_after_a_key_change_and_resume(
    request, caplog, monkeypatch, settings, start, task_queue, site, client, django_user_model,
    class_path, options_of, fake_name,
):  # fmt: skip
    fake = request.getfixturevalue(fake_name)
    monkeypatch.setenv("OPENAI_API_KEY", "ENV-OPENAI-KEY-1111")
    monkeypatch.setenv("DEEPL_AUTH_KEY", "ENV-DEEPL-KEY-1111:fx")
    caplog.set_level(logging.DEBUG)
    keys = [*known_keys(options_of, fake), "ENV-OPENAI-KEY-1111", "ENV-DEEPL-KEY-1111"]

    run = run_with_a_key_change(start, task_queue, settings, site, class_path, options_of, fake)

    assert run.status == RunStatus.SUCCEEDED, run.error_message
    assert "credentials changed" in run.translator_change
    assert any(r.status == 200 for r in fake.requests)  # the keys were really sent
    client.force_login(django_user_model.objects.create_superuser("root", "r@x.test", "pw"))
    places = {
        "database": every_text_in_the_database(),
        "logs": caplog.text,
        "admin": every_admin_page_of(client, run),
        "command line": every_command_output_of(run),
        "task arguments": json.dumps(
            [[r.args, r.kwargs] for r in task_queue.backend.results], default=str
        ),
    }
    found = {where: [k for k in keys if k in text] for where, text in places.items()}
    assert found == {where: [] for where in places}


@pytest.mark.django_db
def test_a_server_that_echoes_the_key_has_it_hidden_from_the_message(
    settings, start, task_queue, site, fake_openai
):
    options = llm_options(fake_openai, 1)
    fake_openai.rejected_keys.add(options["API_KEY"])
    fake_openai.echo_key_in_errors = True
    use_translator(settings, LLM_CLASS, options)

    run = start(scope=site.scope, source_locale="en", target_locales=["fr"])
    task_queue.drain()
    run.refresh_from_db()

    assert run.status == RunStatus.FAILED
    assert "[credential]" in run.error_message
    assert options["API_KEY"] not in run.error_message
