"""Starting runs and reporting on them: the API the admin and the command line share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from wagtail.models import Locale

from ..conf import SLUG_POLICIES, get_settings
from ..errors import RunConfigurationError
from ..models import ContentSource, Mode, PublishPolicy, Run
from ..scope.enumeration import Scope, validate_scope
from ..translators.loading import build_translator, pinned_translator


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


def check_choice(value: str, choices, name: str) -> None:
    values = list(getattr(choices, "values", choices))
    if value not in values:
        raise RunConfigurationError(f"Unknown {name} {value!r}: choose one of {', '.join(values)}.")


def start_run(
    *,
    scope: Scope | dict[str, Any],
    source_locale: Locale | str,
    target_locales: Iterable[Locale | str],
    mode: str = Mode.CHANGED,
    publish_policy: str = PublishPolicy.DRAFT,
    content_source: str = ContentSource.LIVE,
    canary_size: int | None = None,
    user=None,
) -> Run:
    """Validate the request, create the run and queue its coordinator.

    Raises RunConfigurationError or ScopeError with an editor-readable message; nothing is
    created in that case.
    """
    from ..tasks import enqueue_coordinator

    scope = scope if isinstance(scope, Scope) else Scope.from_json(scope)
    source = resolve_locale(source_locale)
    targets = resolve_targets(target_locales, source)
    check_choice(mode, Mode, "mode")
    check_choice(publish_policy, PublishPolicy, "publish policy")
    check_choice(content_source, ContentSource, "content source")
    slug_policy = get_settings().SLUG_POLICY
    check_choice(slug_policy, SLUG_POLICIES, "slug policy")
    if canary_size is not None and canary_size < 1:
        raise RunConfigurationError("A canary needs at least one unit.")
    validate_scope(scope, source)
    translator_class, translator_options = pinned_translator()
    refuse_unsupported_locales(translator_class, translator_options, source, targets)
    with transaction.atomic():
        run = Run.objects.create(
            scope=scope.to_json(),
            source_locale=source,
            mode=mode,
            publish_policy=publish_policy,
            content_source=content_source,
            slug_policy=slug_policy,
            canary_size=canary_size,
            translator_class=translator_class,
            translator_options=translator_options,
            created_by=user,
        )
        run.target_locales.set(targets)
        transaction.on_commit(lambda: enqueue_coordinator(run.pk))
    return run


def refuse_unsupported_locales(class_path: str, options, source: Locale, targets) -> None:
    """Refuse a run into locales the translator cannot do, before thousands of failures."""
    try:
        translator = build_translator(class_path, options)
    except Exception as err:
        raise RunConfigurationError(f"The translator {class_path} cannot be loaded: {err}") from err
    unsupported = [t.language_code for t in targets if not translator.can_translate(source, t)]
    if unsupported:
        raise RunConfigurationError(
            f"The translator cannot translate from {source.language_code} into "
            f"{', '.join(unsupported)}. Remove those locales or configure another translator."
        )


def run_summary(run: Run) -> dict[str, Any]:
    """A JSON-serialisable report of a run (used by `bulk_translate status --json`)."""
    run.refresh_from_db()
    totals = run.unit_totals()
    duration = None
    if run.started_at:
        end = run.finished_at or timezone.now()
        duration = round((end - run.started_at).total_seconds(), 1)
    return {
        "id": run.pk,
        "status": run.status,
        "mode": run.mode,
        "canary": run.is_canary,
        "canary_size": run.canary_size,
        "publish_policy": run.publish_policy,
        "source_locale": run.source_locale.language_code,
        "target_locales": sorted(run.target_locales.values_list("language_code", flat=True)),
        "enumeration_done": run.enumeration_done,
        "units_total": run.units_total,
        "units": run.unit_counts(),
        "units_by_locale": units_by_locale(run),
        "strings_translated": totals["strings_translated"],
        "billed_characters": totals["billed_characters"],
        "errors": error_breakdown(run),
        "created_at": run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "duration_seconds": duration,
        "error_code": run.error_code,
        "error_message": run.error_message,
    }


def units_by_locale(run: Run) -> dict[str, dict[str, int]]:
    """{locale code: {unit status: count}}, statuses without units left out."""
    rows = (
        run.units.values_list("target_locale__language_code", "status")
        .annotate(n=Count("pk"))
        .order_by()
    )
    result: dict[str, dict[str, int]] = {}
    for code, status, n in rows:
        result.setdefault(code, {})[status] = n
    return {code: result[code] for code in sorted(result)}


def error_breakdown(run: Run) -> dict[str, int]:
    rows = (
        run.units.exclude(error_code="")
        .values_list("error_code")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return dict(rows)
