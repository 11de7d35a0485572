"""The ``WAGTAIL_BULK_TRANSLATE`` settings dict, read lazily into a frozen dataclass.

Every key is optional. Each key is declared once, in :class:`BulkTranslateSettings`: its type,
its range (a :mod:`~wagtail_bulk_translate.conf.rules` rule), its default and what it does.
The system checks validate the configured dict against those declarations
(:func:`setting_problems`), and the settings reference (docs/reference/settings.md) is
generated from them (:func:`reference_table`; a test keeps the page in sync).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from .rules import (
    DictOf,
    Flag,
    Keys,
    ListOf,
    Number,
    Problem,
    Rule,
    Text,
    show,
    unknown_key_problem,
)
from .translator_keys import TranslatorKeys, declared

SETTING_NAME = "WAGTAIL_BULK_TRANSLATE"


SECONDS = Number(minimum=0, exclusive=True)
SECONDS_OR_ZERO = Number(minimum=0)
AT_LEAST_ONE = Number(minimum=1, integer=True)
SLUG_POLICIES = ("derive", "keep", "translate")  # models.SlugPolicy's values (a test checks it)
SYNC_PUBLISH_POLICIES = ("draft", "publish", "mirror")  # models.PublishPolicy's values
SYNC_SOURCE_REMOVED = ("report", "ignore")
OUTDATED_GLOSSARY_POLICIES = ("warn", "wait")
# Site ids are looked up as strings (translatable_settings.site_locale_map).
SITE_LOCALES_RULE = DictOf(Text(), Text(), shape='{"hostname" or "site id": "locale code"}')
EXCLUDE_FIELDS_RULE = DictOf(
    Text(), ListOf(Text()), shape='{"app_label.ModelName": ["field", ...]}'
)
RUN_ORIGINS = ("admin", "command", "automatic")  # models.RunOrigin's values (a test checks it)
CAP_RULE = Keys(
    {
        "characters": Number(minimum=0, integer=True, optional=True),
        "cost": Number(minimum=0, optional=True),
    },
    optional=True,
)
CAPS_RULE = Keys({"run": CAP_RULE, "daily": CAP_RULE, "monthly": CAP_RULE}, optional=True)
BUDGETS_RULE = Keys(
    {
        "run": CAP_RULE,
        "daily": CAP_RULE,
        "monthly": CAP_RULE,
        "origins": DictOf(
            Text(choices=RUN_ORIGINS), CAPS_RULE, shape='{"admin"|"command"|"automatic": caps}'
        ),
        "profiles": DictOf(Text(), CAPS_RULE, shape='{"translator profile": caps}'),
    }
)
# No cap on runs an editor starts; automatic sync spends at most this a day unless configured.
DEFAULT_BUDGETS: dict[str, Any] = {"origins": {"automatic": {"daily": {"characters": 100_000}}}}


@dataclass(frozen=True)
class BulkTranslateSettings(TranslatorKeys):
    """Every key of the settings dict (the translator's, declared in translator_keys.py,
    first)."""

    TASK_BACKEND: str = field(
        default="default",
        metadata=declared(Text(), "django-tasks backend alias the plugin enqueues on."),
    )
    QUEUE: str = field(
        default="bulk_translate",
        metadata=declared(Text(), "queue name (must be in the backend's `QUEUES`)."),
    )
    ENUMERATION_BATCH_SIZE: int = field(
        default=500, metadata=declared(AT_LEAST_ONE, "objects read per enumeration query.")
    )
    COORDINATOR_TICK_SECONDS: float = field(
        default=10, metadata=declared(SECONDS_OR_ZERO, "time budget of one coordinator tick.")
    )
    UNITS_PER_CLAIM: int = field(
        default=25,
        metadata=declared(
            AT_LEAST_ONE, "units a worker claims at once (rounded up to whole objects)."
        ),
    )
    MAX_UNITS_PER_CLAIM: int = field(
        default=200,
        metadata=declared(
            AT_LEAST_ONE,
            "a claim whose last request per locale is not full grows, UNITS_PER_CLAIM at a "
            "time, up to this many units not yet written.",
        ),
    )
    WORKER_CONCURRENCY: int = field(
        default=4,
        metadata=declared(AT_LEAST_ONE, "worker tasks queued per run as units appear."),
    )
    WORKER_TIME_BUDGET_SECONDS: float = field(
        default=60,
        metadata=declared(SECONDS, "a worker task re-queues itself after this long."),
    )
    LEASE_SECONDS: int = field(
        default=300,
        metadata=declared(AT_LEAST_ONE, "lease on a claimed unit / on the coordinator."),
    )
    MAX_ATTEMPTS: int = field(
        default=3, metadata=declared(AT_LEAST_ONE, "attempts per unit before it fails for good.")
    )
    TASK_MAX_ATTEMPTS: int = field(
        default=3,
        metadata=declared(
            AT_LEAST_ONE,
            "failures in a row of a run's coordinator or worker task before the run ends "
            "`failed` with the error.",
        ),
    )
    RETRY_BACKOFF_SECONDS: float = field(
        default=15,
        metadata=declared(
            SECONDS_OR_ZERO,
            "first back-off of a transient failure (rate limit, server error, timeout); "
            "doubles per attempt.",
        ),
    )
    RETRY_BACKOFF_MAX_SECONDS: float = field(
        default=600, metadata=declared(SECONDS_OR_ZERO, "longest back-off.")
    )
    QUOTA_RETRY_SECONDS: float = field(
        default=900,
        metadata=declared(SECONDS_OR_ZERO, "how often a run paused for quota tries again."),
    )
    JANITOR_INTERVAL_SECONDS: float | None = field(
        default=60,
        metadata=declared(
            Number(minimum=0, exclusive=True, optional=True),
            "janitor sweep interval while a run is active (`None`: never; run "
            "`manage.py bulk_translate_janitor` from cron instead).",
        ),
    )
    STALL_SECONDS: float = field(
        default=120,
        metadata=declared(
            SECONDS,
            "a running run with claimable units and no worker activity for this long gets the "
            "worker tasks it is missing (theirs died with a killed worker process).",
        ),
    )
    REVERT_WINDOW_DAYS: float = field(
        default=30,
        metadata=declared(SECONDS_OR_ZERO, "how long after it finished a run can be reverted."),
    )
    PRICE_PER_MILLION_CHARACTERS: float = field(
        default=20.0,
        metadata=declared(Number(minimum=0), "preflight price per million billed characters."),
    )
    CURRENCY: str = field(default="EUR", metadata=declared(Text(), "preflight currency."))
    BUDGETS: dict[str, Any] = field(
        default_factory=lambda: dict(DEFAULT_BUDGETS),
        metadata=declared(
            BUDGETS_RULE,
            "spending caps: `run` (each run), `daily` and `monthly` (all runs together, per "
            "calendar day and month in `TIME_ZONE`), each a dict of `characters` (sent, as the "
            "preflight counts them) and `cost` (in `CURRENCY`, for translators that report "
            "money); `origins` adds caps counting only the runs of one origin (`admin`, "
            "`command`, `automatic`), `profiles` caps counting only what one translator "
            "profile was sent. A run reaching any cap pauses with `budget_exceeded`. "
            "Setting it replaces the default (see docs/concepts/budgets.md).",
        ),
    )
    CONFIRM_ABOVE_COST: float | None = field(
        default=50.0,
        metadata=declared(
            Number(minimum=0, optional=True),
            "the admin asks for an extra confirmation before starting a run whose preflight "
            "estimate costs more than this (in `CURRENCY`); `0` always asks, `None` never does.",
        ),
    )
    SLUG_POLICY: str = field(
        default="derive",
        metadata=declared(
            Text(choices=SLUG_POLICIES),
            "slugs of new pages: `derive` (from the translated title), `keep` (source slug), "
            "`translate`. Existing targets always keep their slug, so no redirect is ever left "
            "behind.",
        ),
    )
    SITE_LOCALES: dict[str, str] = field(
        default_factory=dict,
        metadata=declared(
            SITE_LOCALES_RULE,
            "which locale each site serves, for site settings (default: its root page's).",
        ),
    )
    EXCLUDE_FIELDS: dict[str, list[str]] = field(
        default_factory=dict,
        metadata=declared(
            EXCLUDE_FIELDS_RULE, "fields copied unchanged, never sent to the translator."
        ),
    )
    OUTDATED_GLOSSARY: str = field(
        default="warn",
        metadata=declared(
            Text(choices=OUTDATED_GLOSSARY_POLICIES),
            "while a language pair's DeepL glossary waits to sync (or its sync failed): `warn` "
            "translates with its previous terms, says so on the run page, preflight and "
            'command line, and the next "changed" run redoes those texts once it is in sync; '
            "`wait` pauses runs that need it until the sync ends (a sync that gave up warns).",
        ),
    )

    REVIEW_MIN_LENGTH_RATIO: float = field(
        default=0.5,
        metadata=declared(
            Number(minimum=0),
            "a translation shorter than this share of its source (in characters, markup "
            "excluded) is flagged for review.",
        ),
    )
    REVIEW_MAX_LENGTH_RATIO: float = field(
        default=2.5,
        metadata=declared(
            Number(minimum=0, exclusive=True),
            "a translation longer than this many times its source is flagged for review.",
        ),
    )
    REVIEW_MIN_CHARACTERS: int = field(
        default=20,
        metadata=declared(
            Number(minimum=0, integer=True),
            "sources shorter than this are not measured by the length check (a button label "
            "may rightly double).",
        ),
    )
    HOUSE_STYLE_MAX_CHARACTERS: int = field(
        default=10_000,
        metadata=declared(
            Number(minimum=1, integer=True),
            "longest house style instructions the admin accepts (they go with every "
            "language-model request).",
        ),
    )
    SYNC_ENABLED: bool = field(
        default=False,
        metadata=declared(
            Flag(),
            "automatic sync: publishing a source page or saving a translatable snippet of a "
            'synced site (Bulk translation → Automatic sync) queues a "changed" translation '
            "of it. Off: nothing is recorded on publish.",
        ),
    )
    SYNC_WINDOW_SECONDS: float = field(
        default=300,
        metadata=declared(
            SECONDS_OR_ZERO,
            "automatic sync translates an object this long after its first unsynced change; "
            "every publish within the window joins the same unit per locale.",
        ),
    )
    SYNC_PUBLISH_POLICY: str = field(
        default="draft",
        metadata=declared(
            Text(choices=SYNC_PUBLISH_POLICIES),
            "what automatic runs do with their targets: `draft`, `publish`, or `mirror` the "
            "source's live status.",
        ),
    )
    SYNC_ON_SOURCE_REMOVED: str = field(
        default="report",
        metadata=declared(
            Text(choices=SYNC_SOURCE_REMOVED),
            "a synced source unpublished, moved or deleted: `report` leaves the translations as "
            "they are and lists the event on the Automatic sync screen; `ignore` leaves them "
            "without a word.",
        ),
    )

    @classmethod
    def known_keys(cls) -> set[str]:
        return {f.name for f in fields(cls)}


@dataclass(frozen=True)
class KeySpec:
    """One key of the settings dict as declared above."""

    name: str
    rule: Rule
    default: Any
    doc: str


def key_specs() -> list[KeySpec]:
    defaults = BulkTranslateSettings()
    return [
        KeySpec(f.name, f.metadata["rule"], getattr(defaults, f.name), f.metadata["doc"])
        for f in fields(BulkTranslateSettings)
    ]


def user_setting() -> dict[Any, Any]:
    return getattr(settings, SETTING_NAME, None) or {}


def setting_problems() -> list[Problem]:
    """Every unknown key and every value of the wrong type or out of range, in key order."""
    user = user_setting()
    if not isinstance(user, dict):
        return [
            Problem(
                "",
                f"{SETTING_NAME} is {show(user)}: expected a dict.",
                hint=f"Set {SETTING_NAME} to a dict of the keys in the configuration reference.",
            )
        ]
    specs = {spec.name: spec for spec in key_specs()}
    found: list[Problem] = []
    for key, value in user.items():
        spec = specs.get(key)
        if spec is None:
            found.append(unknown_key_problem(SETTING_NAME, "", key, specs))
        else:
            found += spec.rule.problems(SETTING_NAME, f"[{key!r}]", value)
    return found


def reference_table() -> str:
    """The settings reference's table, generated from the declarations above."""
    rows = ["| key | type and range | default | meaning |", "|---|---|---|---|"]
    for spec in key_specs():
        rows.append(f"| `{spec.name}` | {spec.rule.expected()} | `{spec.default!r}` | {spec.doc} |")
    return "\n".join(rows) + "\n"


# The parsed settings, with the setting object they were parsed from. A different object (a
# new value, or the setting deleted or restored) is parsed again even when no setting_changed
# signal came: pytest-django's ``del settings.X`` and its undo send none, and a cache reset
# only by the signal then served one test's settings to the next.
_cached: tuple[Any, BulkTranslateSettings] | None = None


def unknown_setting_keys() -> set[str]:
    user = user_setting()
    return set(user if isinstance(user, dict) else {}) - BulkTranslateSettings.known_keys()


def get_settings() -> BulkTranslateSettings:
    """The current settings; unknown keys are reported by a system check, not here."""
    global _cached
    raw = getattr(settings, SETTING_NAME, None)
    if _cached is None or _cached[0] is not raw:
        user = raw if isinstance(raw, dict) else {}
        known = BulkTranslateSettings.known_keys()
        _cached = (raw, BulkTranslateSettings(**{k: v for k, v in user.items() if k in known}))
    return _cached[1]


@receiver(setting_changed)
def _reset_settings(*, setting: str, **kwargs: Any) -> None:
    global _cached
    if setting in (SETTING_NAME, "WAGTAILLOCALIZE_MACHINE_TRANSLATOR"):
        _cached = None
