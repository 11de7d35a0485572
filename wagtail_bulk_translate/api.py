"""The public API: what the admin and the command line call, and nothing else of the engine.

Callers import from here only, so the engine's modules can move without touching them. Every
function takes ids or plain values and raises a ``BulkTranslateError`` subclass with an
editor-readable message when a request is refused.
"""

from __future__ import annotations

from .conf import get_settings
from .coverage import CoverageKind, CoverageRow, coverage
from .engine.janitor import SweepReport, keep_janitor_alive
from .engine.janitor import sweep as janitor_sweep
from .engine.ledger import characters_sent
from .engine.pauses import pause_run, resume_run
from .errors import BulkTranslateError, ErrorCode, RunConfigurationError, ScopeError
from .glossary.changes import glossary_changed
from .glossary.csv_io import (
    GlossaryImportError,
    ImportSummary,
    export_csv,
    export_queryset,
    import_csv,
)
from .glossary.imports import queue_import as queue_glossary_import
from .localize.review import (
    CanaryOutcome,
    CanarySample,
    SampleString,
    canary_outcome,
    canary_samples,
    canary_units,
)
from .management.reporting import format_summary, progress_line
from .models import ReviewState, RunOrigin
from .object_state import (
    LocaleState,
    SourceRevision,
    TargetOrigin,
    TranslationState,
    source_states,
    target_origin,
)
from .revert.undo import (
    RevertRefused,
    RevertSummary,
    check_revertible,
    revert_summary,
    start_revert,
)
from .runs.controls import cancel_run, promote_canary, retry_failed
from .runs.filters import check_retry_filters
from .runs.liveness import seconds_without_worker, task_failure_note, worker_command
from .runs.preflight import Preflight, canary_too_large, empty_scope_reason, preflight
from .runs.review import (
    REVIEW_ACTIONS,
    accept_review,
    annotate_review_counts,
    dismiss_review,
    pending_review_count,
    pending_review_counts,
    retranslate_review,
    retranslate_with_term,
    review_of,
    review_queue,
    review_row,
    target_of,
)
from .runs.start import resolve_locale, start_run
from .runs.summary import error_breakdown, run_details, run_summary, units_by_locale
from .scope.definition import Scope
from .scope.permissions import Refusal
from .scope.permissions import refusal as permission_refusal
from .scope.readiness import Untranslatable, untranslatable_in_scope
from .scope.whole_site import (
    translatable_setting_labels,
    translatable_snippet_labels,
    whole_site_scope,
)
from .sync.status import sync_status
from .sync.switch import pause_all as pause_automatic_translation
from .sync.switch import resume_all as resume_automatic_translation
from .sync.switch import set_site_paused as set_site_sync_paused
from .translators.base import Usage

__all__ = [
    "REVIEW_ACTIONS",
    "BulkTranslateError",
    "CanaryOutcome",
    "CanarySample",
    "CoverageKind",
    "CoverageRow",
    "ErrorCode",
    "GlossaryImportError",
    "ImportSummary",
    "LocaleState",
    "Preflight",
    "Refusal",
    "RevertRefused",
    "RevertSummary",
    "ReviewState",
    "RunConfigurationError",
    "RunOrigin",
    "SampleString",
    "Scope",
    "ScopeError",
    "SourceRevision",
    "SweepReport",
    "TargetOrigin",
    "TranslationState",
    "Untranslatable",
    "Usage",
    "accept_review",
    "annotate_review_counts",
    "canary_outcome",
    "canary_samples",
    "canary_too_large",
    "canary_units",
    "cancel_run",
    "characters_sent",
    "check_retry_filters",
    "check_revertible",
    "coverage",
    "dismiss_review",
    "empty_scope_reason",
    "error_breakdown",
    "export_csv",
    "export_queryset",
    "format_summary",
    "get_settings",
    "glossary_changed",
    "import_csv",
    "janitor_sweep",
    "keep_janitor_alive",
    "pause_automatic_translation",
    "pause_run",
    "pending_review_count",
    "pending_review_counts",
    "permission_refusal",
    "preflight",
    "progress_line",
    "promote_canary",
    "queue_glossary_import",
    "resolve_locale",
    "resume_automatic_translation",
    "resume_run",
    "retranslate_review",
    "retranslate_with_term",
    "retry_failed",
    "revert_summary",
    "review_of",
    "review_queue",
    "review_row",
    "run_details",
    "run_summary",
    "seconds_without_worker",
    "set_site_sync_paused",
    "source_states",
    "start_revert",
    "start_run",
    "sync_status",
    "target_of",
    "target_origin",
    "task_failure_note",
    "translatable_setting_labels",
    "translatable_snippet_labels",
    "units_by_locale",
    "untranslatable_in_scope",
    "whole_site_scope",
    "worker_command",
]
