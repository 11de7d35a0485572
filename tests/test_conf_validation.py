"""Every key of WAGTAIL_BULK_TRANSLATE is validated against its declaration (type and range).

Each wrong value names the key, the value and what is expected; unknown keys name the nearest
known key. These are what ``manage.py check`` reports (see test_checks.py for the ids).
"""

from __future__ import annotations

import pytest

from wagtail_bulk_translate import conf
from wagtail_bulk_translate.conf import setting_problems

# key → values the key refuses (wrong type or out of range).
BAD_VALUES = {
    "TRANSLATOR": ["x", ["CLASS"], {"OPTIONS": {}}, {"CLASS": ""}, {"CLASS": 3}],
    "TASK_BACKEND": ["", None, 1],
    "QUEUE": ["", None, ["bulk_translate"]],
    "ENUMERATION_BATCH_SIZE": [0, -1, "500", 2.5, True, None],
    "COORDINATOR_TICK_SECONDS": [-1, "10", None],
    "UNITS_PER_CLAIM": ["10", 0, -3, 1.5, False],
    "WORKER_CONCURRENCY": [0, "4", None],
    "WORKER_TIME_BUDGET_SECONDS": [0, -1, "60"],
    "LEASE_SECONDS": ["300", 0, 0.5, None],
    "MAX_ATTEMPTS": [0, -1, "3", 2.0],
    "TASK_MAX_ATTEMPTS": [0, -1, "3", 2.0],
    "MAX_UNITS_PER_CLAIM": [0, -1, "200", 2.0],
    "RETRY_BACKOFF_SECONDS": [-0.1, "15"],
    "RETRY_BACKOFF_MAX_SECONDS": [-1, "600"],
    "QUOTA_RETRY_SECONDS": [-1, "900", None],
    "JANITOR_INTERVAL_SECONDS": [0, -5, "60"],
    "STALL_SECONDS": [0, "120", None],
    "REVERT_WINDOW_DAYS": [-1, "30"],
    "PRICE_PER_MILLION_CHARACTERS": [-1, "20", None],
    "CURRENCY": ["", 978, None],
    "CONFIRM_ABOVE_COST": [-1, "50", True],
    "SLUG_POLICY": ["transliterate", "", None],
    "SITE_LOCALES": [["fr.localhost"], {"fr.localhost": 3}, {2: "fr"}, {"fr.localhost": ""}],
    "TRANSLATORS": [
        ["deepl"],
        {"deepl": "wagtail_bulk_translate.translators.deepl.DeepLTranslator"},
        {"deepl": {"OPTIONS": {}}},
        {"deepl": {"CLASS": "x.Y", "LOCALES": "fr"}},
        {"deepl": {"CLASS": "x.Y", "NAMES": "DeepL"}},
        {3: {"CLASS": "x.Y"}},
    ],
    "LOCALE_TRANSLATORS": [["gpt"], {"sw": 3}, {"sw": ["gpt", 2]}, {"sw": ""}],
    "TRANSLATOR_FALLBACK": ["yes", 1, None],
    "EDITOR_TRANSLATORS": ["gpt", [""], None],
    "RETRANSLATE_ON_PROFILE_CHANGE": ["no", 0, None],
    "EXCLUDE_FIELDS": [["demo.Testimonial"], {"demo.Testimonial": "author"}, {"x": [1]}],
    "REVIEW_MIN_LENGTH_RATIO": [-0.1, "0.5", None],
    "REVIEW_MAX_LENGTH_RATIO": [0, -1, "2.5", None],
    "REVIEW_MIN_CHARACTERS": [-1, 2.5, "20", None],
    "HOUSE_STYLE_MAX_CHARACTERS": [0, 2.5, "10000", None],
    "BUDGETS": [
        "100",
        {"daily": 5},
        {"daily": {"characters": -1}},
        {"daily": {"characters": 2.5}},
        {"weekly": {"characters": 5}},
        {"origins": {"robot": {"daily": {"characters": 5}}}},
    ],
    "SYNC_ENABLED": [1, "yes", None],
    "SYNC_WINDOW_SECONDS": [-1, "300", None],
    "SYNC_PUBLISH_POLICY": ["live", "", None],
    "SYNC_ON_SOURCE_REMOVED": ["delete", "", None],
    "OUTDATED_GLOSSARY": ["block", "", None, True],
}

# key → values the key accepts (besides its default).
GOOD_VALUES = {
    "TRANSLATOR": [
        None,
        {"CLASS": "tests.translator_doubles.RecordingTranslator"},
        {"CLASS": "tests.translator_doubles.RecordingTranslator", "OPTIONS": {"A": 1}},
        {"CLASS": "tests.translator_doubles.RecordingTranslator", "OPTIONS": None},
    ],
    "TASK_BACKEND": ["translations"],
    "QUEUE": ["translations"],
    "ENUMERATION_BATCH_SIZE": [1, 10_000],
    "COORDINATOR_TICK_SECONDS": [0, 1.5],
    "UNITS_PER_CLAIM": [1, 50],
    "WORKER_CONCURRENCY": [1],
    "WORKER_TIME_BUDGET_SECONDS": [0.5, 20],
    "LEASE_SECONDS": [1, 3600],
    "MAX_ATTEMPTS": [1, 10],
    "TASK_MAX_ATTEMPTS": [1, 5],
    "MAX_UNITS_PER_CLAIM": [1, 500],
    "RETRY_BACKOFF_SECONDS": [0, 0.01],
    "RETRY_BACKOFF_MAX_SECONDS": [0, 100],
    "QUOTA_RETRY_SECONDS": [0, 60],
    "JANITOR_INTERVAL_SECONDS": [None, 1, 0.5],
    "STALL_SECONDS": [3, 0.5],
    "REVERT_WINDOW_DAYS": [0, 7.5],
    "PRICE_PER_MILLION_CHARACTERS": [0, 25],
    "CURRENCY": ["USD"],
    "CONFIRM_ABOVE_COST": [None, 0, 12.5],
    "SLUG_POLICY": ["derive", "keep", "translate"],
    "SITE_LOCALES": [{}, {"fr.localhost": "fr", "2": "de"}],
    "TRANSLATORS": [
        {},
        {
            "deepl": {"CLASS": "wagtail_bulk_translate.translators.deepl.DeepLTranslator"},
            "gpt": {
                "CLASS": "wagtail_bulk_translate.translators.llm.LLMTranslator",
                "OPTIONS": {"MODEL": "gpt-4o-mini"},
                "NAME": "GPT",
                "LOCALES": ["sw", "tl"],
            },
        },
    ],
    "LOCALE_TRANSLATORS": [{}, {"sw": "gpt", "pt-BR": ["gpt", "deepl"], "*": "deepl"}],
    "TRANSLATOR_FALLBACK": [True, False],
    "EDITOR_TRANSLATORS": [[], ["deepl", "gpt"]],
    "RETRANSLATE_ON_PROFILE_CHANGE": [True, False],
    "EXCLUDE_FIELDS": [{}, {"demo.Testimonial": ["author"]}, {"demo.Testimonial": ("author",)}],
    "REVIEW_MIN_LENGTH_RATIO": [0, 0.8],
    "REVIEW_MAX_LENGTH_RATIO": [1.5, 4],
    "REVIEW_MIN_CHARACTERS": [0, 100],
    "HOUSE_STYLE_MAX_CHARACTERS": [1, 10_000],
    "BUDGETS": [
        {},
        {"daily": {"characters": 1000}},
        {"run": {"cost": 2.5}, "origins": {"automatic": {"monthly": {"characters": 0}}}},
    ],
    "SYNC_ENABLED": [True, False],
    "SYNC_WINDOW_SECONDS": [0, 30],
    "SYNC_PUBLISH_POLICY": ["draft", "publish", "mirror"],
    "SYNC_ON_SOURCE_REMOVED": ["report", "ignore"],
    "OUTDATED_GLOSSARY": ["warn", "wait"],
}


def cases(table: dict[str, list]) -> list:
    return [
        pytest.param(key, value, id=f"{key}={value!r}")
        for key, values in table.items()
        for value in values
    ]


def test_every_declared_key_has_bad_and_good_values_tested():
    declared = {spec.name for spec in conf.key_specs()}

    assert set(BAD_VALUES) == declared
    assert set(GOOD_VALUES) == declared


@pytest.mark.parametrize(("key", "value"), cases(BAD_VALUES))
def test_a_wrong_value_is_a_problem_naming_the_key_the_value_and_what_is_expected(
    settings, key, value
):
    settings.WAGTAIL_BULK_TRANSLATE = {key: value}

    problems = setting_problems()

    assert problems, f"{key}={value!r} was accepted"
    message = problems[0].message
    assert f"WAGTAIL_BULK_TRANSLATE[{key!r}]" in message
    assert "expected" in message or "has no" in message or "unknown key" in message
    assert f"WAGTAIL_BULK_TRANSLATE[{key!r}]" in problems[0].hint


@pytest.mark.parametrize(("key", "value"), cases(GOOD_VALUES))
def test_a_valid_value_is_no_problem(settings, key, value):
    settings.WAGTAIL_BULK_TRANSLATE = {key: value}

    assert setting_problems() == []


def test_the_issue_examples_each_name_value_and_expectation(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "LEASE_SECONDS": "300",
        "UNITS_PER_CLAIM": "10",
        "MAX_ATTEMPTS": 0,
        "EXCLUDE_FIELDS": ["demo.Testimonial"],
    }

    messages = [problem.message for problem in setting_problems()]

    assert messages == [
        "WAGTAIL_BULK_TRANSLATE['LEASE_SECONDS'] is '300' (str): expected an integer of at "
        "least 1.",
        "WAGTAIL_BULK_TRANSLATE['UNITS_PER_CLAIM'] is '10' (str): expected an integer of at "
        "least 1.",
        "WAGTAIL_BULK_TRANSLATE['MAX_ATTEMPTS'] is 0 (int): expected an integer of at least 1.",
        "WAGTAIL_BULK_TRANSLATE['EXCLUDE_FIELDS'] is ['demo.Testimonial'] (list): expected a "
        'dict {"app_label.ModelName": ["field", ...]}.',
    ]


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("UNITS_PER_CLAIMS", "UNITS_PER_CLAIM"),
        ("units_per_claim", "UNITS_PER_CLAIM"),
        ("LEASE_SECOND", "LEASE_SECONDS"),
        ("MAX_ATTEMPT", "MAX_ATTEMPTS"),
        ("EXCLUDED_FIELDS", "EXCLUDE_FIELDS"),
        ("TRANSLATOR_FALLBACKS", "TRANSLATOR_FALLBACK"),
    ],
)
def test_an_unknown_key_names_the_nearest_known_key(settings, typo, meant):
    settings.WAGTAIL_BULK_TRANSLATE = {typo: 1}

    (problem,) = setting_problems()

    assert problem.unknown_key
    assert problem.message.endswith(f"has an unknown key {typo!r}: did you mean {meant}?")
    assert "UNITS_PER_CLAIM" in problem.hint  # the valid keys are listed


def test_an_unknown_key_like_no_other_suggests_nothing(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {"ZZZ": 1}

    (problem,) = setting_problems()

    assert problem.message == "WAGTAIL_BULK_TRANSLATE has an unknown key 'ZZZ'."


@pytest.mark.parametrize(
    ("translator", "expected"),
    [
        (
            {"CLAS": "x.Y"},
            [
                "WAGTAIL_BULK_TRANSLATE['TRANSLATOR'] has no 'CLASS' key.",
                "WAGTAIL_BULK_TRANSLATE['TRANSLATOR'] has an unknown key 'CLAS': did you mean "
                "CLASS?",
            ],
        ),
        (
            {"CLASS": "x.Y", "OPTION": {}},
            [
                "WAGTAIL_BULK_TRANSLATE['TRANSLATOR'] has an unknown key 'OPTION': did you mean "
                "OPTIONS?"
            ],
        ),
        (
            {"CLASS": "x.Y", "OPTIONS": ["AUTH_KEY"]},
            [
                "WAGTAIL_BULK_TRANSLATE['TRANSLATOR']['OPTIONS'] is ['AUTH_KEY'] (list): "
                "expected a dict, or None."
            ],
        ),
    ],
)
def test_nested_translator_keys_are_validated(settings, translator, expected):
    settings.WAGTAIL_BULK_TRANSLATE = {"TRANSLATOR": translator}

    assert [problem.message for problem in setting_problems()] == expected


def test_nested_values_name_their_full_path(settings):
    settings.WAGTAIL_BULK_TRANSLATE = {
        "EXCLUDE_FIELDS": {"demo.Testimonial": ["author", 3]},
        "SITE_LOCALES": {"fr.localhost": None},
    }

    messages = [problem.message for problem in setting_problems()]

    assert messages == [
        "WAGTAIL_BULK_TRANSLATE['EXCLUDE_FIELDS']['demo.Testimonial'][1] is 3 (int): expected "
        "a non-empty string.",
        "WAGTAIL_BULK_TRANSLATE['SITE_LOCALES']['fr.localhost'] is None (NoneType): expected a "
        "non-empty string.",
    ]


def test_a_setting_that_is_not_a_dict_is_one_problem(settings):
    settings.WAGTAIL_BULK_TRANSLATE = ["QUEUE"]

    (problem,) = setting_problems()

    assert "expected a dict" in problem.message
