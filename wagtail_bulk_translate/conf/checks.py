"""System checks: misconfiguration is reported at start-up with a hint, not mid-run."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.db import DatabaseError, models
from wagtail.coreutils import get_content_languages
from wagtail.models import Locale

from ..compat import DummyBackend, InvalidTaskBackend, task_backends
from ..scope.definition import model_label
from .rules import Problem, nearest_key
from .settings import get_settings, setting_problems

# The translator profiles' checks, registered on import and kept reachable from here.
from .translator_checks import (  # noqa: F401
    check_cost_caps,
    check_glossary_profiles,
    check_lease_outlasts_a_call,
    check_pseudo_translator,
    check_translator,
    check_translator_options,
    check_translator_routing,
    key_has_problems,
)

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
