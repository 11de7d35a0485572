"""The public API: what the admin and the command line call, and nothing else of the engine.

Callers import from here only, so the engine's modules can move without touching them. Every
function takes ids or plain values and raises a ``BulkTranslateError`` subclass with an
editor-readable message when a request is refused.
"""

from __future__ import annotations

from .conf import get_settings
from .controls import cancel_run, pause_run, promote_canary, resume_run, retry_failed
from .coverage import CoverageKind, CoverageRow, coverage
from .errors import BulkTranslateError, ErrorCode, RunConfigurationError, ScopeError
from .preflight import Preflight, preflight
from .reporting import format_summary, progress_line
from .revert import RevertRefused, RevertSummary, check_revertible, revert_summary, start_revert
from .review import CanarySample, SampleString, canary_samples
from .runs import error_breakdown, run_summary, start_run, units_by_locale
from .scope import Scope, translatable_setting_labels, translatable_snippet_labels, whole_site_scope

__all__ = [
    "BulkTranslateError",
    "CanarySample",
    "CoverageKind",
    "CoverageRow",
    "ErrorCode",
    "Preflight",
    "RevertRefused",
    "RevertSummary",
    "RunConfigurationError",
    "SampleString",
    "Scope",
    "ScopeError",
    "canary_samples",
    "cancel_run",
    "check_revertible",
    "coverage",
    "error_breakdown",
    "format_summary",
    "get_settings",
    "pause_run",
    "preflight",
    "progress_line",
    "promote_canary",
    "resume_run",
    "retry_failed",
    "revert_summary",
    "run_summary",
    "start_revert",
    "start_run",
    "translatable_setting_labels",
    "translatable_snippet_labels",
    "units_by_locale",
    "whole_site_scope",
]
