"""Exceptions and the stable error codes recorded on units.

Every unit that does not translate carries one of :class:`ErrorCode` and a message written for
editors. Codes are data (stored, filtered on, retried by); never rename one.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import models
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from .translators.base import Translations


class ErrorCode(models.TextChoices):
    # Skips: nothing went wrong, the unit was deliberately left alone.
    UNCHANGED = "unchanged", _("Unchanged since the last machine translation")
    CANARY_NOT_SAMPLED = "canary_not_sampled", _("Not in the canary sample")
    DUPLICATE_IN_FLIGHT = "duplicate_in_flight", _("Already being translated by another run")
    SYNC_STOPPED = "sync_stopped", _("Synced translation was stopped")
    MANUAL_EDITS_KEPT = "manual_edits_kept", _("Target edited outside the translation pipeline")
    TARGET_LOCKED = "target_locked", _("Target page is locked")
    CANCELLED = "cancelled", _("The run was cancelled or stopped before this unit ran")
    PARENT_NOT_TRANSLATED = "parent_not_translated", _("Its parent page failed to translate")
    NOT_PERMITTED = (
        "not_permitted",
        _("The run's editor may not edit (or publish) this object in Wagtail"),
    )
    # Written as a draft with some texts left in the source language: a person decides.
    HELD_FOR_REVIEW = "held_for_review", _("Held for review: a text could not be translated")
    # Failures.
    SOURCE_CHANGED = "source_changed", _("Source changed while it was being translated")
    SOURCE_DELETED = "source_deleted", _("Source object was deleted")
    VALIDATION_ERROR = "validation_error", _("The translated object did not validate")
    INVALID_MARKUP = "invalid_markup", _("The translator returned broken markup")
    TOO_LARGE = "too_large", _("Content too large for the translator")
    MODEL_REFUSED = "model_refused", _("The language model refused to translate this text")
    SUSPICIOUS_OUTPUT = (
        "suspicious_output",
        _("The language model's answer did not look like a translation"),
    )
    INVALID_ANSWER = "invalid_answer", _("The language model's answer could not be read")
    TRANSLATOR_ERROR = "translator_error", _("The translator failed")
    UNSUPPORTED_LOCALE = "unsupported_locale", _("The translator cannot translate this locale")
    QUOTA_EXCEEDED = "quota_exceeded", _("Translator quota exhausted")
    BUDGET_EXCEEDED = "budget_exceeded", _("A spending cap was reached")
    GLOSSARY_SYNCING = "glossary_syncing", _("Waiting for a glossary to sync to the translator")
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


class PermissionRefused(BulkTranslateError):
    """The acting user may not do this by Wagtail's permissions; the message says what."""


class UnitError(BulkTranslateError):
    """A unit failed for a reason an editor can act on; carries a stable code.

    ``transient`` errors are retried with back-off until the unit's attempts run out.
    """

    def __init__(self, code: ErrorCode, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.transient = transient


class UnitSkipped(UnitError):
    """A unit was deliberately not written (sync stopped, manual edits kept, locked...)."""


class TranslatorError(UnitError):
    """A provider failure raised by a translator. Subclasses say how the run reacts.

    ``partial`` holds what the call translated (and was billed for) before it failed.
    ``answer_lost``: the last request went out and its answer never came (see
    :class:`AnswerLostError`); an answered refusal (a 429, a 503, a 4xx) is not that.
    """

    answer_lost = False

    def __init__(
        self,
        message: str,
        code: ErrorCode = ErrorCode.TRANSLATOR_ERROR,
        *,
        transient: bool = False,
    ) -> None:
        super().__init__(code, message, transient=transient)
        self.partial: Translations | None = None


class TransientTranslatorError(TranslatorError):
    """Rate limited, server error, timeout, dropped connection: retried with back-off."""

    def __init__(self, message: str, code: ErrorCode = ErrorCode.TRANSLATOR_ERROR) -> None:
        super().__init__(message, code, transient=True)


class AnswerLostError(TransientTranslatorError):
    """The request went out and no answer came back (a timeout, a connection dropped after
    sending): the provider may have processed, and billed, it. Retried like other transient
    errors; the run reports its texts as "sent without an answer"."""

    answer_lost = True


class QuotaExceededError(TranslatorError):
    """The provider's quota is used up: the run pauses instead of failing its units."""

    def __init__(self, message: str = "The translator's character quota is used up.") -> None:
        super().__init__(message, ErrorCode.QUOTA_EXCEEDED)


class BudgetExceededError(UnitError):
    """A spending cap would be passed by the next request: the run pauses, nothing is lost.

    ``resumes_at``: when the cap's period rolls over (None: a per-run cap, raised by hand);
    ``needs``: what the refused request's first text needs, ``{"characters": n, "cost": "x"}``.
    """

    def __init__(self, message: str, resumes_at: datetime | None, needs: dict[str, Any]) -> None:
        super().__init__(ErrorCode.BUDGET_EXCEEDED, message)
        self.resumes_at = resumes_at
        self.needs = needs


class GlossaryOutOfDateError(TranslatorError):
    """A language pair's glossary is syncing to the provider and runs wait for it (the
    OUTDATED_GLOSSARY setting): the run pauses until the sync ends, nothing is lost."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ErrorCode.GLOSSARY_SYNCING)


class TranslatorConfigError(TranslatorError):
    """Authentication or configuration is wrong: the run stops with one clear message."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ErrorCode.AUTH_CONFIG)


class TextTooLargeError(TranslatorError):
    """One text exceeds what the provider accepts in a request."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ErrorCode.TOO_LARGE)
