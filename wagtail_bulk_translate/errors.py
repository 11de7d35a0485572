"""Exceptions and the stable error codes recorded on units.

Every unit that does not translate carries one of :class:`ErrorCode` and a message written for
editors. Codes are data (stored, filtered on, retried by); never rename one.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class ErrorCode(models.TextChoices):
    # Skips: nothing went wrong, the unit was deliberately left alone.
    UNCHANGED = "unchanged", _("Unchanged since the last machine translation")
    CANARY_NOT_SAMPLED = "canary_not_sampled", _("Not in the canary sample")
    DUPLICATE_IN_FLIGHT = "duplicate_in_flight", _("Already being translated by another run")
    SYNC_STOPPED = "sync_stopped", _("Synced translation was stopped")
    MANUAL_EDITS_KEPT = "manual_edits_kept", _("Target edited outside the translation pipeline")
    TARGET_LOCKED = "target_locked", _("Target page is locked")
    # Failures.
    SOURCE_DELETED = "source_deleted", _("Source object was deleted")
    VALIDATION_ERROR = "validation_error", _("The translated object did not validate")
    INVALID_MARKUP = "invalid_markup", _("The translator returned broken markup")
    TOO_LARGE = "too_large", _("Content too large for the translator")
    TRANSLATOR_ERROR = "translator_error", _("The translator failed")
    UNSUPPORTED_LOCALE = "unsupported_locale", _("The translator cannot translate this locale")
    QUOTA_EXCEEDED = "quota_exceeded", _("Translator quota exhausted")
    RATE_LIMITED = "rate_limited", _("Translator rate limit reached")
    AUTH_CONFIG = "auth_config", _("Translator authentication or configuration error")
    LEASE_EXPIRED = "lease_expired", _("The worker stopped responding too many times")
    INTERNAL_ERROR = "internal_error", _("Unexpected error")


class BulkTranslateError(Exception):
    """Base class of every error the plugin raises on purpose."""


class ScopeError(BulkTranslateError):
    """The scope of a run is invalid (unknown or non-translatable model, missing object...)."""


class RunConfigurationError(BulkTranslateError):
    """A run cannot start as requested (bad locales, empty scope, bad option)."""


class UnitError(BulkTranslateError):
    """A unit failed for a reason an editor can act on; carries a stable code."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class UnitSkipped(UnitError):
    """A unit was deliberately not written (sync stopped, manual edits kept, locked...)."""
