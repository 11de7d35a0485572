"""The ``WAGTAIL_BULK_TRANSLATE`` settings dict, read lazily into a frozen dataclass.

Every key is optional. Defaults::

    WAGTAIL_BULK_TRANSLATE = {
        # Machine translator used by new runs: a wagtail-localize translator class and options.
        # None falls back to WAGTAILLOCALIZE_MACHINE_TRANSLATOR, then to the pseudo translator.
        "TRANSLATOR": None,
        # django-tasks backend alias and queue the plugin's tasks are enqueued on.
        "TASK_BACKEND": "default",
        "QUEUE": "bulk_translate",
        # Coordinator: objects read per query, and wall-clock budget of one tick.
        "ENUMERATION_BATCH_SIZE": 500,
        "COORDINATOR_TICK_SECONDS": 10,
        # Workers: units claimed at once, tasks queued per run, time budget of one task.
        "UNITS_PER_CLAIM": 10,
        "WORKER_CONCURRENCY": 4,
        "WORKER_TIME_BUDGET_SECONDS": 60,
        # Leases on units and on the coordinator, and bounded attempts.
        "LEASE_SECONDS": 300,
        "MAX_ATTEMPTS": 3,
        # Transient failures (rate limits, server errors, timeouts) come back after
        # RETRY_BACKOFF_SECONDS * 2 ** (attempt - 1), at most RETRY_BACKOFF_MAX_SECONDS.
        "RETRY_BACKOFF_SECONDS": 15,
        "RETRY_BACKOFF_MAX_SECONDS": 600,
        # A run paused because the translator's quota ran out tries again after this long.
        "QUOTA_RETRY_SECONDS": 900,
        # The janitor task re-queues itself this often while a run is active (None: never;
        # run `manage.py bulk_translate_janitor` from cron instead).
        "JANITOR_INTERVAL_SECONDS": 60,
        # A running run with claimable work and no worker activity for this long gets new
        # worker tasks from the janitor (their tasks died with a killed worker process).
        "STALL_SECONDS": 120,
        # How long after it finished a run can still be reverted.
        "REVERT_WINDOW_DAYS": 30,
        # Preflight cost: price per million billed characters, and its currency.
        "PRICE_PER_MILLION_CHARACTERS": 20.0,
        "CURRENCY": "EUR",
        # The admin asks for an extra confirmation before starting a run whose preflight
        # estimate costs more than this (in CURRENCY); None never asks.
        "CONFIRM_ABOVE_COST": 50.0,
        # Page slugs of new targets: "derive" (slugify the translated title), "keep" (source
        # slug) or "translate" (machine-translate the slug). Existing targets keep their slug.
        "SLUG_POLICY": "derive",
        # Site settings: {site hostname or id: locale code}; by default a site serves the
        # locale of its root page.
        "SITE_LOCALES": {},
        # Fields never sent to the translator: {"app_label.ModelName": ["field", ...]}.
        "EXCLUDE_FIELDS": {},
    }
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

SETTING_NAME = "WAGTAIL_BULK_TRANSLATE"


@dataclass(frozen=True)
class BulkTranslateSettings:
    TRANSLATOR: dict[str, Any] | None = None
    TASK_BACKEND: str = "default"
    QUEUE: str = "bulk_translate"
    ENUMERATION_BATCH_SIZE: int = 500
    COORDINATOR_TICK_SECONDS: float = 10
    UNITS_PER_CLAIM: int = 10
    WORKER_CONCURRENCY: int = 4
    WORKER_TIME_BUDGET_SECONDS: float = 60
    LEASE_SECONDS: int = 300
    MAX_ATTEMPTS: int = 3
    RETRY_BACKOFF_SECONDS: float = 15
    RETRY_BACKOFF_MAX_SECONDS: float = 600
    QUOTA_RETRY_SECONDS: float = 900
    JANITOR_INTERVAL_SECONDS: float | None = 60
    STALL_SECONDS: float = 120
    REVERT_WINDOW_DAYS: float = 30
    PRICE_PER_MILLION_CHARACTERS: float = 20.0
    CURRENCY: str = "EUR"
    CONFIRM_ABOVE_COST: float | None = 50.0
    SLUG_POLICY: str = "derive"  # a models.SlugPolicy value (checked by a system check)
    SITE_LOCALES: dict[str, str] = field(default_factory=dict)
    EXCLUDE_FIELDS: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def known_keys(cls) -> set[str]:
        return {f.name for f in fields(cls)}


_cached: BulkTranslateSettings | None = None


def unknown_setting_keys() -> set[str]:
    return set(getattr(settings, SETTING_NAME, {}) or {}) - BulkTranslateSettings.known_keys()


def get_settings() -> BulkTranslateSettings:
    """The current settings; unknown keys are reported by a system check, not here."""
    global _cached
    if _cached is None:
        user = getattr(settings, SETTING_NAME, {}) or {}
        known = BulkTranslateSettings.known_keys()
        _cached = BulkTranslateSettings(**{k: v for k, v in user.items() if k in known})
    return _cached


@receiver(setting_changed)
def _reset_settings(*, setting: str, **kwargs: Any) -> None:
    global _cached
    if setting in (SETTING_NAME, "WAGTAILLOCALIZE_MACHINE_TRANSLATOR"):
        _cached = None
