"""The public API: what the admin and the command line call, and nothing else of the engine.

Callers import from here only, so the engine's modules can move without touching them. Every
function takes ids or plain values and raises a ``BulkTranslateError`` subclass with an
editor-readable message when a request is refused.
"""

from __future__ import annotations

from .controls import cancel_run, pause_run, promote_canary, resume_run, retry_failed
from .errors import BulkTranslateError, RunConfigurationError, ScopeError
from .preflight import Preflight, preflight
from .reporting import format_summary, progress_line
from .revert import RevertRefused, RevertSummary, check_revertible, revert_summary, start_revert
from .runs import error_breakdown, run_summary, start_run, units_by_locale
from .scope import Scope, whole_site_scope

__all__ = [
    "BulkTranslateError",
    "Preflight",
    "RevertRefused",
    "RevertSummary",
    "RunConfigurationError",
    "Scope",
    "ScopeError",
    "cancel_run",
    "check_revertible",
    "error_breakdown",
    "format_summary",
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
    "units_by_locale",
    "whole_site_scope",
]
