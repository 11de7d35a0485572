"""Translator profiles: each locale of a run goes through the profile the routing (or the run's
own choice) gives it, pinned for the run's life, with its spend counted per profile.

DeepL (on the fake DeepL server) serves French and German; a language model (on the fake
OpenAI-compatible server) serves Spanish, by routing or by fallback.
"""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from wagtail_localize.models import StringTranslation

from tests.lookups import translated
from tests.translators.conftest import DEEPL_CLASS, LLM_CLASS, llm_options
from wagtail_bulk_translate.api import preflight, run_summary
from wagtail_bulk_translate.engine.translator_settings import take_current_translator
from wagtail_bulk_translate.errors import RunConfigurationError
from wagtail_bulk_translate.models import Run, SentText, SpentRequest, UnitStatus
from wagtail_bulk_translate.translators.pins import run_pins

pytestmark = pytest.mark.django_db


@pytest.fixture
def profiles(conf, fake_deepl, fake_openai):
    """``profiles(**keys)``: DeepL for fr and de only, a model for anything; routing "*" to
    DeepL unless the keys say otherwise."""

    def _configure(**keys):
        values = dict(
            TRANSLATOR=None,
            TRANSLATORS={
                "deepl": {
                    "CLASS": DEEPL_CLASS,
                    "OPTIONS": {"AUTH_KEY": "test:fx", "SERVER_URL": fake_deepl.url},
                    "NAME": "DeepL Pro",
                    "LOCALES": ["fr", "de"],
                },
                "gpt": {"CLASS": LLM_CLASS, "OPTIONS": llm_options(fake_openai), "NAME": "GPT"},
            },
            LOCALE_TRANSLATORS={"*": "deepl"},
            RETRY_BACKOFF_SECONDS=0,
        )
        conf(**{**values, **keys})

    _configure()
    return _configure


@pytest.fixture
def translate(start, site, task_queue):
    def _translate(locales=("fr", "de", "es"), **kwargs) -> Run:
        run = start(scope=site.scope, source_locale="en", target_locales=list(locales), **kwargs)
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _translate


def profile_of(run: Run) -> dict[str, str]:
    codes = dict(run.target_locales.values_list("pk", "language_code"))
    return {codes[pk]: pin.profile for pk, pin in run_pins(run).items()}


def test_each_locale_goes_through_its_profile_and_spend_is_counted_per_profile(
    profiles, translate, fake_deepl, fake_openai, site
):
    run = translate()

    assert run.status == "succeeded"
    assert profile_of(run) == {"fr": "deepl", "de": "deepl", "es": "gpt"}  # es: by fallback
    assert fake_deepl.texts_sent("FR") and fake_deepl.texts_sent("DE")
    assert not fake_deepl.texts_sent("ES")
    assert fake_openai.answered()
    assert all(translated(site.story, code) for code in ("fr", "de", "es"))
    es_tools = set(
        StringTranslation.objects.filter(locale__language_code="es").values_list(
            "tool_name", flat=True
        )
    )
    assert es_tools and all(", profile gpt, output " in tool for tool in es_tools)
    assert set(SentText.objects.filter(run=run).values_list("profile", flat=True)) == {
        "deepl",
        "gpt",
    }
    assert set(SpentRequest.objects.filter(run=run).values_list("profile", flat=True)) == {"gpt"}

    rows = {row["profile"]: row for row in run_summary(run)["translators"]}
    assert rows["deepl"]["label"] == "DeepL Pro" and rows["deepl"]["locales"] == ["de", "fr"]
    assert rows["deepl"]["billed_characters"] > 0 and rows["deepl"]["spend"] is None
    assert rows["gpt"]["locales"] == ["es"] and rows["gpt"]["texts_sent"] > 0
    assert float(rows["gpt"]["spend"]["cost"]) > 0


def test_the_command_line_shows_spend_per_profile(profiles, translate, capsys):
    run = translate()

    call_command("bulk_translate", "status", str(run.pk))

    out = capsys.readouterr().out
    assert "profile DeepL Pro (DeepLTranslator) for de, fr:" in out
    assert "profile GPT (LLMTranslator) for es:" in out and "EUR" in out


def test_without_fallback_a_locale_its_profile_cannot_serve_is_refused(profiles, translate):
    profiles(TRANSLATOR_FALLBACK=False)

    with pytest.raises(RunConfigurationError, match="No translator profile can translate"):
        translate()
    assert not Run.objects.exists()


def test_the_routing_names_a_profile_by_language(profiles, translate, fake_deepl):
    profiles(LOCALE_TRANSLATORS={"fr": "gpt", "*": "deepl"})

    run = translate(locales=("fr", "de"))

    assert profile_of(run) == {"fr": "gpt", "de": "deepl"}
    assert fake_deepl.texts_sent("DE") and not fake_deepl.texts_sent("FR")


def test_a_run_chooses_its_profile_for_every_locale_or_one(profiles, translate):
    assert profile_of(translate(locales=("fr", "de"), translator="gpt")) == {
        "fr": "gpt",
        "de": "gpt",
    }
    assert profile_of(translate(locales=("fr", "de"), translator={"fr": "gpt"})) == {
        "fr": "gpt",
        "de": "deepl",
    }


@pytest.mark.parametrize(
    ("choice", "allowed", "message"),
    [
        ("nope", None, "Unknown translator profile 'nope'"),
        ("gpt", ["deepl"], "Unknown translator profile 'gpt': choose one of deepl"),
        ({"es": "deepl"}, None, "'DeepL Pro' cannot translate from en into es"),
        ({"ja": "gpt"}, None, "names a locale the run does not translate into"),
    ],
)
def test_a_choice_the_run_cannot_follow_is_refused(profiles, start, site, choice, allowed, message):
    with pytest.raises(RunConfigurationError, match=message):
        start(
            scope=site.scope,
            source_locale="en",
            target_locales=["fr", "es"],
            translator=choice,
            allowed_translators=allowed,
        )
    assert not Run.objects.exists()


def test_changed_after_a_profile_switch_translates_exactly_that_locale_again(
    profiles, translate, fake_deepl, fake_openai
):
    translate(locales=("fr", "de"))
    profiles(LOCALE_TRANSLATORS={"fr": "gpt", "*": "deepl"})
    fake_deepl.requests.clear()
    fake_openai.requests.clear()

    run = translate(locales=("fr", "de"))

    assert profile_of(run) == {"fr": "gpt", "de": "deepl"}
    assert fake_openai.texts_sent() and not fake_deepl.translate_requests()
    succeeded = run.units.filter(status=UnitStatus.SUCCEEDED)
    assert set(succeeded.values_list("target_locale__language_code", flat=True)) == {"fr"}
    # German was left as DeepL wrote it: its units were skipped, unchanged.


def test_a_setting_keeps_what_the_previous_profile_wrote(
    profiles, translate, fake_deepl, fake_openai
):
    translate(locales=("fr",))
    profiles(LOCALE_TRANSLATORS={"*": "gpt"}, RETRANSLATE_ON_PROFILE_CHANGE=False)
    fake_openai.requests.clear()

    translate(locales=("fr",))

    assert fake_openai.answered() == []


def test_naming_the_translator_a_site_used_as_a_profile_bills_nothing_again(
    conf, translate, fake_deepl
):
    deepl = {"CLASS": DEEPL_CLASS, "OPTIONS": {"AUTH_KEY": "test:fx", "SERVER_URL": fake_deepl.url}}
    conf(TRANSLATOR=deepl)
    translate(locales=("fr",))
    conf(TRANSLATOR=None, TRANSLATORS={"deepl": deepl})
    fake_deepl.requests.clear()

    run = translate(locales=("fr",))

    assert profile_of(run) == {"fr": "deepl"}
    assert fake_deepl.translate_requests() == []


def test_resume_takes_each_profiles_options_again_but_never_the_routing(
    profiles, start, site, fake_openai
):
    run = start(scope=site.scope, source_locale="en", target_locales=["fr", "es"])
    profiles(
        LOCALE_TRANSLATORS={"*": "gpt"},
        TRANSLATORS={
            "deepl": {"CLASS": DEEPL_CLASS, "OPTIONS": {"AUTH_KEY": "test:fx"}},
            "gpt": {"CLASS": LLM_CLASS, "OPTIONS": llm_options(fake_openai, MODEL="other")},
        },
    )

    assert take_current_translator(run.pk, "resume")

    run.refresh_from_db()
    assert profile_of(run) == {"fr": "deepl", "es": "gpt"}
    pins = {pin.profile: pin for pin in run_pins(run).values()}
    assert pins["gpt"].options["MODEL"] == "other"
    assert "SERVER_URL" not in pins["deepl"].options
    assert "gpt: MODEL 'fake-model' → 'other'" in run.translator_change
    assert "API_KEY" not in str(run.locale_translators) and "sk-test" not in str(
        run.locale_translators
    )


def test_the_preflight_shows_each_locales_profile_and_its_estimate(profiles, site):
    estimate = preflight(site.scope, "en", ["fr", "de", "es"])

    assert estimate.locale_profiles == {"fr": "DeepL Pro", "de": "DeepL Pro", "es": "GPT"}
    by_profile = {p.profile: p for p in estimate.profiles}
    assert by_profile["deepl"].locales == ["fr", "de"] and by_profile["deepl"].spend is None
    assert by_profile["deepl"].characters == sum(
        estimate.characters_to_bill[c] for c in ("fr", "de")
    )
    assert by_profile["gpt"].spend is not None and by_profile["gpt"].spend.prompt_tokens > 0
    assert estimate.estimated_cost == by_profile["deepl"].cost + by_profile["gpt"].cost
    assert estimate.as_dict()["profiles"][1]["profile"] == "gpt"


def test_the_command_line_chooses_a_profile(profiles, site, task_queue, capsys):
    call_command(
        "bulk_translate",
        "start",
        "--subtree",
        str(site.home.pk),
        "--locales",
        "fr,de",
        "--translator",
        "gpt",
        "--translator",
        "de=deepl",
    )

    assert profile_of(Run.objects.get()) == {"fr": "gpt", "de": "deepl"}


@pytest.mark.parametrize("value", ["=gpt", "fr=", ""])
def test_a_malformed_translator_flag_is_refused(profiles, site, value):
    with pytest.raises(CommandError, match="--translator takes PROFILE or LOCALE=PROFILE"):
        call_command(
            "bulk_translate",
            "start",
            "--subtree",
            str(site.home.pk),
            "--locales",
            "fr",
            "--translator",
            value,
        )
    assert not Run.objects.exists()


def test_the_dashboard_shows_what_each_profile_cost(profiles, translate, admin_client):
    translate()

    html = admin_client.get(reverse("wagtailadmin_home")).content.decode()

    spend = html[html.index("data-bt-dashboard-profile-spend") :]
    spend = spend[: spend.index("</div>")]
    assert "DeepL Pro:" in spend and "characters" in spend
    assert "GPT:" in spend and "EUR" in spend
