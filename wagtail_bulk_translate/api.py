"""The public API: what the admin and the command line call, and nothing else of the engine.

Callers import from here only, so the engine's modules can move without touching them. Every
function takes ids or plain values and raises a ``BulkTranslateError`` subclass with an
editor-readable message when a request is refused.
"""

from __future__ import annotations

from .engine.janitor import SweepReport
from .engine.janitor import sweep as janitor_sweep
from .errors import BulkTranslateError, RunConfigurationError, ScopeError
from .revert.undo import (
    RevertRefused,
    RevertSummary,
    check_revertible,
    revert_summary,
    start_revert,
)
from .runs.controls import cancel_run, pause_run, promote_canary, resume_run, retry_failed
from .runs.preflight import Preflight, preflight
from .runs.start import error_breakdown, resolve_locale, run_summary, start_run, units_by_locale
from .scope.enumeration import Scope, whole_site_scope

__all__ = [
    "BulkTranslateError",
    "Preflight",
    "RevertRefused",
    "RevertSummary",
    "RunConfigurationError",
    "Scope",
    "ScopeError",
    "SweepReport",
    "cancel_run",
    "check_revertible",
    "error_breakdown",
    "janitor_sweep",
    "pause_run",
    "preflight",
    "promote_canary",
    "resolve_locale",
    "resume_run",
    "retry_failed",
    "revert_summary",
    "run_summary",
    "start_revert",
    "start_run",
    "units_by_locale",
    "whole_site_scope",
]
