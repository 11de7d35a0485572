"""The plugin's tables: runs and their units, the run tally, the billing ledger, the leases, and
the glossary with the house style per locale, and automatic sync.

The unit table, not the task queue, is the source of truth for the work.
"""

from .billing import BudgetReservation, SentOutcome, SentText, SpentRequest
from .budgets import BudgetCap, CapPeriod
from .choices import (
    ContentSource,
    Mode,
    PublishPolicy,
    RunOrigin,
    RunStatus,
    SlugPolicy,
    UnitStatus,
)
from .glossary import (
    DeepLGlossary,
    Formality,
    GlossaryChange,
    GlossaryTerm,
    GlossaryTranslation,
    HouseStyle,
    SyncStatus,
)
from .glossary_imports import GlossaryImport, GlossaryImportStatus
from .leases import JanitorLease, TextReservation
from .provider_batches import BatchState, ProviderBatch
from .review import ReviewState, UnitReview
from .runs import Run, RunQuerySet
from .sync import PendingChange, SyncConfiguration, SyncEvent, SyncEventKind, SyncSwitch
from .tally import RunTally
from .units import EXPIRED_LEASE, LEASE_EXPIRED_MESSAGE, READY, TRANSLATED, Unit, UnitQuerySet

__all__ = [
    "EXPIRED_LEASE",
    "LEASE_EXPIRED_MESSAGE",
    "READY",
    "TRANSLATED",
    "BatchState",
    "BudgetCap",
    "BudgetReservation",
    "CapPeriod",
    "ContentSource",
    "DeepLGlossary",
    "Formality",
    "GlossaryChange",
    "GlossaryImport",
    "GlossaryImportStatus",
    "GlossaryTerm",
    "GlossaryTranslation",
    "HouseStyle",
    "JanitorLease",
    "Mode",
    "PendingChange",
    "ProviderBatch",
    "PublishPolicy",
    "ReviewState",
    "Run",
    "RunOrigin",
    "RunQuerySet",
    "RunStatus",
    "RunTally",
    "SentOutcome",
    "SentText",
    "SlugPolicy",
    "SpentRequest",
    "SyncConfiguration",
    "SyncEvent",
    "SyncEventKind",
    "SyncStatus",
    "SyncSwitch",
    "TextReservation",
    "Unit",
    "UnitQuerySet",
    "UnitReview",
    "UnitStatus",
]
