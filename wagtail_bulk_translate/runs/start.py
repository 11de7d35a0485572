"""Starting a run: validate the request, pin the translator, create the run, queue its work."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import models, transaction
from wagtail.models import Locale

from .. import schedule
from ..conf import get_settings, setting_problems
from ..errors import RunConfigurationError
from ..models import ContentSource, Mode, PublishPolicy, Run, RunOrigin, SlugPolicy
from ..scope.definition import Scope, validate_scope
from ..scope.enumeration import iter_scope
from ..scope.permissions import acting_fields
from ..scope.readiness import untranslatable_in_scope
from ..translators.loading import TranslatorLoadError, configured_translator_problems
from ..translators.pins import TranslatorPin, choose_pins
from ..translators.profiles import profile_problems
from .audit import log_run_started


def resolve_locale(value: Locale | str) -> Locale:
    if isinstance(value, Locale):
        return value
    locale = Locale.objects.filter(language_code__iexact=value).first()
    if locale is None:
        known = ", ".join(Locale.objects.values_list("language_code", flat=True)) or "none"
        raise RunConfigurationError(f"Unknown locale {value!r}. Known locales: {known}.")
    return locale


def resolve_targets(values: Iterable[Locale | str], source: Locale) -> list[Locale]:
    targets: list[Locale] = []
    for value in values:
        locale = resolve_locale(value)
        if locale.pk == source.pk:
            raise RunConfigurationError(
                f"The source locale {source.language_code} cannot also be a target."
            )
        if locale not in targets:
            targets.append(locale)
    if not targets:
        raise RunConfigurationError("Choose at least one target locale.")
    return targets


def check_choice(value: str, choices: type[models.TextChoices], name: str) -> None:
    values = list(choices.values)
    if value not in values:
        raise RunConfigurationError(f"Unknown {name} {value!r}: choose one of {', '.join(values)}.")


# Run.canary_size is a 32-bit integer column (PostgreSQL's ``integer``).
MAX_CANARY_SIZE = 2_147_483_647


def check_canary_size(canary_size: int | None) -> None:
    if canary_size is None:
        return
    if canary_size < 1:
        raise RunConfigurationError("A canary needs at least one unit.")
    if canary_size > MAX_CANARY_SIZE:
        raise RunConfigurationError(
            f"A canary of {canary_size} units is more than any run holds (at most "
            f"{MAX_CANARY_SIZE}): leave the canary out to translate everything."
        )


def start_run(
    *,
    scope: Scope | dict[str, Any],
    source_locale: Locale | str,
    target_locales: Iterable[Locale | str],
    mode: str = Mode.CHANGED,
    publish_policy: str = PublishPolicy.DRAFT,
    content_source: str = ContentSource.LIVE,
    canary_size: int | None = None,
    user: Any = None,
    estimated_characters: int | None = None,
    origin: str = RunOrigin.ADMIN,
    translator: str | Mapping[str, str] | None = None,
    allowed_translators: Iterable[str] | None = None,
) -> Run:
    """Validate the request, create the run and queue its coordinator.

    ``translator`` chooses the run's translator profile, for every locale (a profile name) or
    per locale ({locale code, language or "*": profile name}); the routing
    (``LOCALE_TRANSLATORS``) decides the rest. ``allowed_translators`` limits the choice (an
    editor's: ``EDITOR_TRANSLATORS``); None allows every profile.

    The run acts with ``user``'s Wagtail permissions: each object it may not write is skipped
    (``not_permitted``) with the reason. ``user`` None acts as the system, with every right.

    Raises RunConfigurationError or ScopeError with an editor-readable message; nothing is
    created in that case.
    """
    scope = scope if isinstance(scope, Scope) else Scope.from_json(scope)
    source = resolve_locale(source_locale)
    targets = resolve_targets(target_locales, source)
    check_choice(mode, Mode, "mode")
    check_choice(publish_policy, PublishPolicy, "publish policy")
    check_choice(content_source, ContentSource, "content source")
    slug_policy = get_settings().SLUG_POLICY
    check_choice(slug_policy, SlugPolicy, "slug policy")
    check_choice(origin, RunOrigin, "origin")
    check_canary_size(canary_size)
    validate_scope(scope, source)
    refuse_incomplete_configuration()
    pins = choose_run_translators(source, targets, translator, allowed_translators)
    first = pins[targets[0].pk]
    refuse_empty_run(scope, source, targets)
    with transaction.atomic():
        run = Run.objects.create(
            scope=scope.to_json(),
            source_locale=source,
            mode=mode,
            publish_policy=publish_policy,
            content_source=content_source,
            slug_policy=slug_policy,
            canary_size=canary_size,
            translator_class=first.class_path,
            translator_options=first.options,
            translator_credentials_digest=first.credentials_digest,
            locale_translators={str(pk): pin.to_json() for pk, pin in pins.items()},
            created_by=user,
            **acting_fields(user),
            origin=origin,
            estimated_characters=estimated_characters,
        )
        run.target_locales.set(targets)
        log_run_started(run, user)
        transaction.on_commit(lambda: schedule.start_coordinator(run.pk))
    return run


def refuse_incomplete_configuration() -> None:
    """Refuse a run that could not work: settings the system checks call wrong, or a translator
    missing what it needs (DeepL without a key: only a warning for other commands)."""
    wrong = setting_problems()
    if wrong:
        raise RunConfigurationError(" ".join(f"{p.message} {p.hint}" for p in wrong))
    unknown = profile_problems()
    if unknown:
        raise RunConfigurationError(" ".join(f"{message} {hint}" for message, hint in unknown))
    try:
        missing = configured_translator_problems()
    except TranslatorLoadError as err:
        raise RunConfigurationError(str(err)) from err
    except (KeyError, TypeError, AttributeError, ValueError) as err:
        raise RunConfigurationError(
            f"The machine translator setting is malformed ({err!r}): see `manage.py check`."
        ) from err
    if missing:
        raise RunConfigurationError(" ".join(f"{p.message} {p.hint}" for p in missing))


def choose_run_translators(
    source: Locale,
    targets: list[Locale],
    translator: str | Mapping[str, str] | None,
    allowed: Iterable[str] | None,
) -> dict[int, TranslatorPin]:
    """Each target locale's translator profile, refusing locales no allowed profile can do
    before thousands of failures."""
    choice = {"*": translator} if isinstance(translator, str) else dict(translator or {})
    return choose_pins(source, targets, choice, allowed=allowed)


def refuse_empty_run(scope: Scope, source: Locale, targets: list[Locale]) -> None:
    """Refuse a run that would have no unit: it would "succeed" having done nothing.

    Stops at the first object that gets a unit, so a real scope costs one batch to check.
    """
    target_ids = {locale.pk for locale in targets}
    found = 0
    for obj in iter_scope(scope, source):
        if obj.target_locale_ids is None or obj.target_locale_ids & target_ids:
            return
        found += 1
    codes = ", ".join(locale.language_code for locale in targets)
    left_out = [
        f"{item.model} cannot be translated: {item.reason} — {item.fix}."
        for item in untranslatable_in_scope(scope, source)
    ]
    if left_out:
        reason = " ".join(left_out)
    elif found:
        reason = (
            f"its {found} object(s) are per-site settings, and no site serves {codes}: "
            "add the locale to a site (Settings → Sites) or choose the locales a site serves."
        )
    else:
        reason = f"the scope holds no object in {source.language_code}."
    raise RunConfigurationError(f"Nothing to translate into {codes}: {reason}")
