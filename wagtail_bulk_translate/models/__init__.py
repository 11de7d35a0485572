"""The plugin's tables: runs and their units, the run tally, the billing ledger, the leases, and
the glossary with the house style per locale.

The unit table, not the task queue, is the source of truth for the work.
"""

from .billing import BudgetReservation, SentOutcome, SentText, SpentRequest
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
    GlossaryTerm,
    GlossaryTranslation,
    HouseStyle,
    SyncStatus,
)
from .leases import JanitorLease, TextReservation
from .review import ReviewState, UnitReview
from .runs import Run, RunQuerySet
from .tally import RunTally
from .units import EXPIRED_LEASE, LEASE_EXPIRED_MESSAGE, READY, Unit, UnitQuerySet

__all__ = [
    "EXPIRED_LEASE",
    "LEASE_EXPIRED_MESSAGE",
    "READY",
    "BudgetReservation",
    "ContentSource",
    "DeepLGlossary",
    "Formality",
    "GlossaryTerm",
    "GlossaryTranslation",
    "HouseStyle",
    "JanitorLease",
    "Mode",
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
    "SyncStatus",
    "TextReservation",
    "Unit",
    "UnitQuerySet",
    "UnitReview",
    "UnitStatus",
]
