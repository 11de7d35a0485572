"""The plugin's tables: runs and their units, the run tally, the billing ledger and the leases.

The unit table, not the task queue, is the source of truth for the work.
"""

from .billing import SentOutcome, SentText, SpentRequest
from .choices import ContentSource, Mode, PublishPolicy, RunStatus, SlugPolicy, UnitStatus
from .leases import JanitorLease, TextReservation
from .runs import Run, RunQuerySet
from .tally import RunTally
from .units import EXPIRED_LEASE, LEASE_EXPIRED_MESSAGE, READY, Unit, UnitQuerySet

__all__ = [
    "EXPIRED_LEASE",
    "LEASE_EXPIRED_MESSAGE",
    "READY",
    "ContentSource",
    "JanitorLease",
    "Mode",
    "PublishPolicy",
    "Run",
    "RunQuerySet",
    "RunStatus",
    "RunTally",
    "SentOutcome",
    "SentText",
    "SlugPolicy",
    "SpentRequest",
    "TextReservation",
    "Unit",
    "UnitQuerySet",
    "UnitStatus",
]
