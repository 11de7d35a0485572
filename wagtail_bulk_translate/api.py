"""The public API: what the admin and the command line call, and nothing else of the engine.

Callers import from here only, so the engine's modules can move without touching them. Every
function takes ids or plain values and raises a ``BulkTranslateError`` subclass with an
editor-readable message when a request is refused.
"""

from __future__ import annotations

from .engine.janitor import SweepReport
from .engine.janitor import sweep as janitor_sweep
from .engine.pauses import pause_run, resume_run
from .errors import BulkTranslateError, RunConfigurationError, ScopeError
from .revert.undo import (
    RevertRefused,
    RevertSummary,
    check_revertible,
    revert_summary,
    start_revert,
)
from .runs.controls import cancel_run, promote_canary, retry_failed
from .runs.preflight import Preflight, preflight
from .runs.start import resolve_locale, start_run
from .runs.summary import error_breakdown, run_summary, units_by_locale
from .scope.definition import Scope
from .scope.whole_site import whole_site_scope
from .translators.base import Usage

__all__ = [
    "BulkTranslateError",
    "Preflight",
    "RevertRefused",
    "RevertSummary",
    "RunConfigurationError",
    "Scope",
    "ScopeError",
    "SweepReport",
    "Usage",
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
