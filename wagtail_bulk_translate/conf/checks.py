"""System checks: misconfiguration is reported at start-up with a hint, not mid-run."""

from __future__ import annotations

import math
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.db import DatabaseError, models
from wagtail.coreutils import get_content_languages
from wagtail.models import Locale

from ..compat import DummyBackend, InvalidTaskBackend, task_backends
from ..scope.definition import model_label
from ..translators.loading import (
    NotATranslatorError,
    TranslatorLoadError,
    configured_translator,
    configured_translator_class,
    configured_translator_problems,
    load_translator_class,
    reports_money,
)
from ..translators.pseudo import PseudoTranslator
from .rules import Problem, nearest_key
from .settings import get_settings, setting_problems

# What a malformed translator setting raises when it is read (reported as E003/E009).
MALFORMED = (KeyError, TypeError, AttributeError, ValueError)
# Wrong values of these keys keep the ids they had before every key was validated.
KEY_CHECK_IDS = {"SLUG_POLICY": "E005", "CONFIRM_ABOVE_COST": "E008"}


@checks.register()
def check_settings(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Every key of WAGTAIL_BULK_TRANSLATE against its declaration in settings.py."""
    return [settings_message(problem) for problem in setting_problems()]


def settings_message(problem: Problem) -> checks.CheckMessage:
    if problem.unknown_key:
        check_id = "E010"
    else:
        top_key = problem.path.split("]", 1)[0].strip("['")
        check_id = KEY_CHECK_IDS.get(top_key, "E009")
    return checks.Error(problem.message, hint=problem.hint, id=f"wagtail_bulk_translate.{check_id}")


@checks.register()
def check_localization(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    if not apps.is_installed("wagtail_localize"):
        errors.append(
            checks.Error(
                "wagtail-localize is not installed.",
                hint="Add 'wagtail_localize' and 'wagtail_localize.locales' to INSTALLED_APPS.",
                id="wagtail_bulk_translate.E001",
            )
        )
    if not getattr(settings, "WAGTAIL_I18N_ENABLED", False):
        errors.append(
            checks.Error(
                "Wagtail internationalisation is disabled.",
                hint="Set WAGTAIL_I18N_ENABLED = True and WAGTAIL_CONTENT_LANGUAGES.",
                id="wagtail_bulk_translate.E002",
            )
        )
    return errors


@checks.register()
def check_translator(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if translator_setting_has_problems():
        return []  # check_settings names what is wrong with WAGTAIL_BULK_TRANSLATE['TRANSLATOR']
    hint = (
        "Fix WAGTAIL_BULK_TRANSLATE['TRANSLATOR']['CLASS'] (or WAGTAILLOCALIZE_MACHINE_TRANSLATOR)."
    )
    try:
        class_path = configured_translator()["CLASS"]
    except MALFORMED:
        return [
            checks.Error(
                "The machine translator setting must be a dict with a 'CLASS' import path "
                "and optional 'OPTIONS'.",
                hint=hint,
                id="wagtail_bulk_translate.E003",
            )
        ]
    try:
        load_translator_class(class_path)
    except NotATranslatorError as err:
        return [checks.Error(str(err), hint=hint, id="wagtail_bulk_translate.E011")]
    except TranslatorLoadError as err:
        return [checks.Error(str(err), hint=hint, id="wagtail_bulk_translate.E003")]
    return []


def translator_setting_has_problems() -> bool:
    return key_has_problems("TRANSLATOR")


def key_has_problems(key: str) -> bool:
    return any(problem.path.startswith(f"[{key!r}]") for problem in setting_problems())


@checks.register()
def check_excluded_fields(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """EXCLUDE_FIELDS is looked up by exact model label and field: a typo sends the field."""
    if key_has_problems("EXCLUDE_FIELDS"):
        return []  # its shape is reported by check_settings
    errors: list[checks.CheckMessage] = []
    for label, names in get_settings().EXCLUDE_FIELDS.items():
        model = find_model(label)
        if model is None or model_label(model) != label:
            guess = f": did you mean {model_label(model)!r}?" if model else "."
            errors.append(
                checks.Error(
                    f"WAGTAIL_BULK_TRANSLATE['EXCLUDE_FIELDS'] names {label!r}, which is not "
                    f"an installed model{guess}",
                    hint="Name models as 'app_label.ModelName' (the model's class name).",
                    id="wagtail_bulk_translate.E012",
                )
            )
            continue
        errors += unknown_excluded_fields(model, label, names)
    return errors


def find_model(label: str) -> type[models.Model] | None:
    try:
        return apps.get_model(label)
    except (LookupError, ValueError):
        return None


def unknown_excluded_fields(
    model: type[models.Model], label: str, names: list[str]
) -> list[checks.CheckMessage]:
    fields = [field.name for field in model._meta.get_fields()]
    errors: list[checks.CheckMessage] = []
    for name in names:
        field_name = name.split(".", 1)[0]  # "body.heading": a block inside the body field
        if field_name in fields:
            continue
        guess = nearest_key(field_name, fields)
        errors.append(
            checks.Error(
                f"WAGTAIL_BULK_TRANSLATE['EXCLUDE_FIELDS'][{label!r}] names {name!r}, but "
                f"{label} has no field {field_name!r}"
                + (f": did you mean {guess!r}?" if guess else "."),
                hint=f"Fields of {label}: {', '.join(sorted(fields))}.",
                id="wagtail_bulk_translate.E012",
            )
        )
    return errors


@checks.register()
def check_site_locales(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """A site mapped to a language that is not a content language would be silently skipped."""
    if key_has_problems("SITE_LOCALES"):
        return []
    languages = get_content_languages()
    return [
        checks.Error(
            f"WAGTAIL_BULK_TRANSLATE['SITE_LOCALES'][{site!r}] is {code!r}, which is not in "
            "WAGTAIL_CONTENT_LANGUAGES.",
            hint=f"Use one of {', '.join(languages)}, or add {code!r} to "
            "WAGTAIL_CONTENT_LANGUAGES.",
            id="wagtail_bulk_translate.E013",
        )
        for site, code in get_settings().SITE_LOCALES.items()
        if code not in languages
    ]


@checks.register()
def check_task_backend(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    conf = get_settings()
    try:
        backend = task_backends[conf.TASK_BACKEND]
    except (InvalidTaskBackend, KeyError) as err:
        return [
            checks.Error(
                f"The task backend {conf.TASK_BACKEND!r} is not configured: {err}.",
                hint="Configure it in TASKS, e.g. django_tasks_db.DatabaseBackend.",
                id="wagtail_bulk_translate.E004",
            )
        ]
    errors: list[checks.CheckMessage] = []
    if isinstance(backend, DummyBackend):
        errors.append(
            checks.Warning(
                f"The task backend {conf.TASK_BACKEND!r} is a DummyBackend: runs never execute.",
                hint="Use django_tasks_db.DatabaseBackend (or another real backend) with workers.",
                id="wagtail_bulk_translate.W002",
            )
        )
    if backend.queues and conf.QUEUE not in backend.queues:
        errors.append(
            checks.Error(
                f"The queue {conf.QUEUE!r} is not in the task backend's QUEUES.",
                hint=f"Add {conf.QUEUE!r} to TASKS[{conf.TASK_BACKEND!r}]['QUEUES'].",
                id="wagtail_bulk_translate.E006",
            )
        )
    return errors


TRY_WITHOUT_A_KEY = (
    "To try the plugin without a key, use the pseudo translator (fake output, never to "
    "publish): WAGTAIL_BULK_TRANSLATE['TRANSLATOR'] = "
    "{'CLASS': 'wagtail_bulk_translate.translators.pseudo.PseudoTranslator'}."
)


@checks.register()
def check_translator_options(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Ask the translator what is missing from its options (e.g. DeepL without a key).

    A warning, not an error: an error would stop every management command, every worker
    (Wagtail's own tasks included) and `bulk_translate status`; starting a run that needs the
    translator is what is refused (runs.start).
    """
    if translator_setting_has_problems():
        return []  # reported by check_settings
    try:
        problems = configured_translator_problems()
    except (*MALFORMED, TranslatorLoadError):
        return []  # reported by check_translator
    return [
        checks.Warning(
            f"{problem.message} Runs cannot start until it is set.",
            hint=f"{problem.hint} {TRY_WITHOUT_A_KEY}",
            id="wagtail_bulk_translate.W003",
        )
        for problem in problems
    ]


@checks.register()
def check_lease_outlasts_a_call(
    app_configs: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """A unit's lease must outlast one translator call (its timeouts and retries): the worker
    renews it while the call runs, but a frozen or cut-off renewal must not hand the unit to
    another worker in the middle of a call that is still paid for."""
    if translator_setting_has_problems() or key_has_problems("LEASE_SECONDS"):
        return []  # reported by check_settings
    try:
        config = configured_translator()
        translator_class = load_translator_class(config["CLASS"])
    except (*MALFORMED, TranslatorLoadError):
        return []  # reported by check_translator
    longest = getattr(translator_class, "longest_call_seconds", None)
    seconds = longest(config["OPTIONS"]) if longest is not None else None
    lease = get_settings().LEASE_SECONDS
    if seconds is None or lease >= seconds:
        return []
    return [
        checks.Error(
            f"WAGTAIL_BULK_TRANSLATE['LEASE_SECONDS'] is {lease}, but one call of "
            f"{translator_class.__name__} may take {seconds:.0f} s with its timeout and retries.",
            hint=f"Set LEASE_SECONDS to at least {math.ceil(seconds)}, or lower the translator's "
            "timeout or retries in WAGTAIL_BULK_TRANSLATE['TRANSLATOR']['OPTIONS'].",
            id="wagtail_bulk_translate.E014",
        )
    ]


@checks.register()
def check_review_length_ratios(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The length check flags translations outside [min, max]: an empty range flags them all."""
    if key_has_problems("REVIEW_MIN_LENGTH_RATIO") or key_has_problems("REVIEW_MAX_LENGTH_RATIO"):
        return []  # reported by check_settings
    conf = get_settings()
    if conf.REVIEW_MIN_LENGTH_RATIO < conf.REVIEW_MAX_LENGTH_RATIO:
        return []
    return [
        checks.Error(
            f"WAGTAIL_BULK_TRANSLATE['REVIEW_MIN_LENGTH_RATIO'] ({conf.REVIEW_MIN_LENGTH_RATIO}) "
            f"is not below REVIEW_MAX_LENGTH_RATIO ({conf.REVIEW_MAX_LENGTH_RATIO}): every "
            "measured translation would be flagged for review.",
            hint="Set REVIEW_MIN_LENGTH_RATIO below REVIEW_MAX_LENGTH_RATIO (by default 0.5, 2.5).",
            id="wagtail_bulk_translate.E015",
        )
    ]


@checks.register()
def check_cost_caps(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """A cost cap counts the money a translator reports; one that bills characters (DeepL)
    reports none, so the cap would never hold anything."""
    if key_has_problems("BUDGETS") or translator_setting_has_problems():
        return []  # reported by check_settings
    if not cost_caps_configured(get_settings().BUDGETS or {}):
        return []
    translator_class = configured_translator_class()
    if translator_class is None or reports_money(translator_class):
        return []  # a translator that cannot load is reported by check_translator
    return [
        checks.Warning(
            f"WAGTAIL_BULK_TRANSLATE['BUDGETS'] sets a cost cap, but {translator_class.__name__} "
            "bills characters and reports no money: the cost cap never holds a run.",
            hint="Cap characters instead: {'daily': {'characters': 100000}}.",
            id="wagtail_bulk_translate.W009",
        )
    ]


def cost_caps_configured(budgets: dict[str, Any]) -> bool:
    groups = [budgets, *(budgets.get("origins") or {}).values()]
    return any(
        ((group or {}).get(period) or {}).get("cost") is not None
        for group in groups
        for period in ("run", "daily", "monthly")
    )


@checks.register()
def check_pseudo_translator(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The pseudo translator writes [ẗéẍẗ] like this: fine in development, not on a real site."""
    if settings.DEBUG or translator_setting_has_problems():
        return []
    try:
        translator_class = load_translator_class(configured_translator()["CLASS"])
    except (*MALFORMED, TranslatorLoadError):
        return []  # reported by check_translator
    if not issubclass(translator_class, PseudoTranslator):
        return []
    return [
        checks.Warning(
            "Runs translate with the pseudo translator (a test double: it writes accented "
            "English, not translations), and DEBUG is off.",
            hint="Set WAGTAIL_BULK_TRANSLATE['TRANSLATOR'] to a real machine translator, e.g. "
            "{'CLASS': 'wagtail_bulk_translate.translators.deepl.DeepLTranslator'} (see "
            "docs/how-to/deepl.md).",
            id="wagtail_bulk_translate.W006",
        )
    ]


@checks.register()
def check_content_languages(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if len(get_content_languages()) >= 2:
        return []
    return [
        checks.Warning(
            "Only one content language is configured: there is nothing to translate into.",
            hint="List the source and target languages in WAGTAIL_CONTENT_LANGUAGES (and "
            "LANGUAGES), e.g. [('en', 'English'), ('fr', 'French')], then create their locales.",
            id="wagtail_bulk_translate.W004",
        )
    ]


@checks.register(checks.Tags.database)
def check_target_locales(
    app_configs: Any = None, databases: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Runs only with a database (`manage.py check --database default`, and `migrate`)."""
    if not databases:
        return []
    try:
        locales = Locale.objects.count()
    except DatabaseError:
        return []  # not migrated yet: migrate runs this check again once it has
    if locales >= 2:
        return []
    return [
        checks.Warning(
            f"There {'is only one locale' if locales else 'are no locales'}: runs need a "
            "target locale besides the source.",
            hint="Create the locales of WAGTAIL_CONTENT_LANGUAGES with `manage.py "
            "bulk_translate_locales`, or in the admin under Settings → Locales.",
            id="wagtail_bulk_translate.W005",
        )
    ]
