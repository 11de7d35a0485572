"""Checking a retry's filters against the run, so a typo is refused instead of matching nothing.

Shared by the command line and the admin (through ``api.retry_failed``).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.contenttypes.models import ContentType

from ..errors import ErrorCode, RunConfigurationError, ScopeError
from ..models import Run
from ..scope.definition import model_label, resolve_model


def check_retry_filters(
    run: Run, *, models: Iterable[str], locales: Iterable[str], error_codes: Iterable[str]
) -> None:
    """Raise RunConfigurationError naming the valid values for an unknown filter value."""
    valid_codes = set(ErrorCode.values)
    if bad := [code for code in error_codes if code not in valid_codes]:
        raise RunConfigurationError(
            f"Unknown error code {', '.join(map(repr, bad))}: choose among "
            f"{', '.join(ErrorCode.values)}."
        )
    run_codes = sorted(run.target_locales.values_list("language_code", flat=True))
    if bad := [code for code in locales if code not in run_codes]:
        raise RunConfigurationError(
            f"Run {run.pk} has no target locale {', '.join(map(repr, bad))}: choose among "
            f"{', '.join(run_codes)}."
        )
    labels = list(models)
    if not labels:
        return
    type_ids = run.units.values_list("content_type_id", flat=True).distinct().order_by()
    run_labels = sorted(
        model_label(ct.model_class() or ContentType)
        for ct in ContentType.objects.filter(pk__in=type_ids)
    )
    choices = ", ".join(run_labels) or "none (the run has no units)"
    for label in labels:
        try:
            known = model_label(resolve_model(label))
        except ScopeError as err:
            raise RunConfigurationError(f"{err} Models in run {run.pk}: {choices}.") from err
        if known not in run_labels:
            raise RunConfigurationError(
                f"Run {run.pk} has no unit of {label}: choose among {choices}."
            )
