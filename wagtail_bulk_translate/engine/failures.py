"""What happens when a step fails: a stable code, a readable message, and how the run reacts.

Quota exhausted or a spending cap reached pauses the run and bad credentials stop it (both
abort the claim); transient failures (rate limits, timeouts, a busy database, a source edited
mid-unit, the task queue unreachable) send the unit back to pending with exponential back-off
until its attempts run out; anything else fails the unit. A lost database connection fails
nothing: it goes up to the worker's loop, which reconnects and gives the claim back
(:mod:`.connections`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.core.exceptions import ValidationError
from django.db import DataError, OperationalError
from django.db.models import F
from django.db.models.functions import Now

from ..conf import get_settings
from ..errors import (
    BudgetExceededError,
    ErrorCode,
    GlossaryOutOfDateError,
    QuotaExceededError,
    TranslatorConfigError,
    UnitError,
    UnitSkipped,
)
from ..localize.sources import SourceDeletedError
from ..models import Unit, UnitStatus
from . import claims, ledger
from .broker import raised_while_queueing
from .claims import Claim
from .connections import is_connection_lost
from .finish import stop_run
from .pauses import pause_for_budget, pause_for_glossary, pause_for_quota
from .work import UnitWork

logger = logging.getLogger(__name__)


class ClaimAborted(Exception):
    """The run was paused or stopped mid-claim; the claim's open units are given back."""


@dataclass(frozen=True)
class Failure:
    code: str
    message: str
    transient: bool = False
    # The database was busy (locked, deadlocked): nothing is wrong with the unit, so retrying
    # it does not use up an attempt.
    busy: bool = False


# What SQLite and PostgreSQL say when another transaction holds what this one needs.
BUSY_DATABASE_MARKERS = (
    "database is locked",
    "database table is locked",
    "deadlock detected",
    "could not serialize access",
    "lock timeout",
    "could not obtain lock",
)
# How long a unit that met a busy database waits before it is claimed again, at most: the
# first retry back-off step if shorter. Jitter keeps workers that collided from colliding again.
BUSY_RETRY_SECONDS = 1.0
# Tries at handing units back while the database stays busy (about 6 s of back-off in all).
RELEASE_ATTEMPTS = 10


def guard_errors(claim: Claim, works: list[UnitWork], step: Callable[[], None]) -> None:
    """Run a step; on failure record it on every still-open unit of ``works``."""
    try:
        step()
    except UnitSkipped as err:
        close_units(claim.token, works, UnitStatus.SKIPPED, err.code, err.message)
    except QuotaExceededError as err:
        pause_for_quota(claim.run.pk, err.message)
        raise ClaimAborted from err
    except BudgetExceededError as err:
        pause_for_budget(claim.run.pk, err)
        raise ClaimAborted from err
    except GlossaryOutOfDateError as err:
        pause_for_glossary(claim.run.pk, err.message)
        raise ClaimAborted from err
    except TranslatorConfigError as err:
        close_units(claim.token, works, UnitStatus.FAILED, err.code, err.message)
        # The claim's other units are given back and cancelled with the run, at once.
        stop_run(claim.run.pk, err.code, err.message, release_token=claim.token)
        raise ClaimAborted from err
    except Exception as err:
        if is_connection_lost(err):
            raise  # nothing is wrong with the units, and nothing can be recorded on them now
        failure = describe_exception(err)
        if failure.code == ErrorCode.INTERNAL_ERROR:
            logger.exception("Run %s: unexpected error in a unit", claim.run.pk)
        if failure.busy:
            logger.info("Run %s: database busy, units retried (%s)", claim.run.pk, err)
            release_busy_units(claim.token, works)
        elif failure.transient:
            claim.transient_failures += 1
            retry_units(claim.token, works, failure)
        else:
            close_units(claim.token, works, UnitStatus.FAILED, failure.code, failure.message)


def close_units(token: str, works: list[UnitWork], status: str, code: str, message: str) -> None:
    for work in works:
        if not work.done:
            claims.finish_unit(work.unit, token, status, error_code=code, error_message=message)
            work.done = True


def retry_units(token: str, works: list[UnitWork], failure: Failure) -> None:
    for work in works:
        if not work.done:
            retry_later(work, token, failure)
            work.done = True


def release_busy_units(token: str, works: list[UnitWork]) -> None:
    """Back to pending, the attempt not counted, claimable again after a short delay.

    Handing back meets the same busy database (SQLite without the install section's options
    fails colliding writes at once): it is retried for a few seconds, so the units come back
    then, not when their lease runs out, and the worker task does not fail.
    """
    for work in works:
        if work.done:
            continue
        try:
            ledger.retry_while_busy(partial(give_back, work.unit, token), RELEASE_ATTEMPTS)
        except OperationalError as err:
            if not is_busy_database(err):
                raise
            logger.warning("Unit %s: database still busy; back when its lease ends", work.unit.pk)
        work.done = True


def give_back(unit: Unit, token: str) -> None:
    delay = busy_delay_seconds()
    claims.held(unit, token).update(
        status=UnitStatus.PENDING,
        attempts=F("attempts") - 1,
        lease_token=None,
        lease_expires_at=None,
        available_after=Now() + timedelta(seconds=delay) if delay else None,
    )


def busy_delay_seconds() -> float:
    base = min(BUSY_RETRY_SECONDS, get_settings().RETRY_BACKOFF_SECONDS)
    return base * (1 + random.random())


def is_busy_database(err: OperationalError) -> bool:
    text = str(err).lower()
    return any(marker in text for marker in BUSY_DATABASE_MARKERS)


def backoff_seconds(attempts: int) -> float:
    conf = get_settings()
    return min(
        conf.RETRY_BACKOFF_SECONDS * 2 ** max(attempts - 1, 0), conf.RETRY_BACKOFF_MAX_SECONDS
    )


def retry_later(work: UnitWork, token: str, failure: Failure) -> None:
    """A transient failure: back to pending after a back-off, or failed once attempts run out."""
    unit = work.unit
    if unit.attempts >= get_settings().MAX_ATTEMPTS:
        message = f"{failure.message} (gave up after {unit.attempts} attempts)"
        claims.finish_unit(
            unit, token, UnitStatus.FAILED, error_code=failure.code, error_message=message
        )
        return
    message = f"{failure.message} (attempt {unit.attempts}, retrying)"
    claims.retry_unit_after(unit, token, backoff_seconds(unit.attempts), failure.code, message)


def describe_exception(err: Exception) -> Failure:
    """A stable error code, an editor-readable message and whether retrying may help."""
    if isinstance(err, UnitError):
        return Failure(err.code, err.message, err.transient)
    if isinstance(err, SourceDeletedError):
        return Failure(ErrorCode.SOURCE_DELETED, "The source object was deleted during the run.")
    if isinstance(err, DataError):
        # PostgreSQL refuses what SQLite silently stores, e.g. a translation too long for its
        # column: the object is invalid, retrying will not help.
        return Failure(
            ErrorCode.VALIDATION_ERROR,
            f"The translated object is invalid — a value does not fit its field ({err}).",
        )
    if isinstance(err, OperationalError):
        if is_busy_database(err):
            # Lock timeouts, deadlocks, serialization failures: retried for free.
            return Failure(ErrorCode.INTERNAL_ERROR, f"The database was busy ({err}).", True, True)
        # A missing column, an out-of-memory server: may pass, but counts as an attempt.
        return Failure(ErrorCode.INTERNAL_ERROR, f"Database error ({err}).", True)
    if raised_while_queueing(err):
        # Before the translator's errors: the broker's client raises ConnectionError too.
        return Failure(
            ErrorCode.INTERNAL_ERROR,
            f"The task queue could not be reached while the object was saved ({err}).",
            True,
        )
    if isinstance(err, (ConnectionError, TimeoutError)):
        return Failure(
            ErrorCode.TRANSLATOR_ERROR, f"The translator could not be reached ({err}).", True
        )
    validation = find_validation_error(err)
    if validation is not None:
        return Failure(ErrorCode.VALIDATION_ERROR, validation_message(validation))
    return Failure(ErrorCode.INTERNAL_ERROR, f"{type(err).__name__}: {err}")


def find_validation_error(err: BaseException | None) -> ValidationError | None:
    # wagtail-localize turns a ValidationError without a field into
    # "AttributeError: ... no attribute 'error_dict'"; the real error is its context.
    while err is not None:
        if isinstance(err, ValidationError):
            return err
        err = err.__cause__ or err.__context__
    return None


def validation_message(err: ValidationError) -> str:
    if hasattr(err, "error_dict"):
        parts = [f"{name}: {' '.join(msgs)}" for name, msgs in err.message_dict.items()]
        return "The translated object is invalid — " + "; ".join(parts)
    return "The translated object is invalid — " + " ".join(err.messages)
