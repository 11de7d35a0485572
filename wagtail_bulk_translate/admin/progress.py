"""Progress of runs as the admin shows it, read with a fixed number of queries.

The listing annotates counts on the runs queryset (one grouped query for a whole page of runs);
the run page and its status endpoint read one run's counts with a handful of grouped queries,
whatever the number of units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.text import capfirst

from ..api import seconds_without_worker
from ..errors import ErrorCode
from ..models import Run, RunStatus, RunTally, UnitStatus

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class ProgressAnnotations(TypedDict):
    """What ``annotate_progress`` adds to every run (besides ``n_<status>`` per unit status)."""

    n_units: int
    n_characters: int
    n_held: int
    n_behind_parent: int


# A run of a queryset ``annotate_progress`` went through (a name for type checking only).
AnnotatedRun: TypeAlias = "WithAnnotations[Run, ProgressAnnotations]"


def annotate_progress(runs: QuerySet[Run]) -> QuerySet[AnnotatedRun]:
    """Unit counts per status and billed characters, as annotations (``n_<status>``...)."""
    per_status = {
        f"n_{status}": Count("units", filter=Q(units__status=status)) for status in UnitStatus
    }
    return runs.annotate(
        n_units=Count("units"),
        n_characters=Coalesce(Sum("units__billed_characters"), 0),
        n_held=Count("units", filter=Q(units__error_code=ErrorCode.HELD_FOR_REVIEW)),
        n_behind_parent=Count("units", filter=Q(units__error_code=ErrorCode.PARENT_NOT_TRANSLATED)),
        **per_status,
    )


@dataclass
class Progress:
    status: str
    counts: dict[str, int]
    enumeration_done: bool
    billed_characters: int = 0
    # Written as drafts for review / skipped because their parent page could not be written.
    held: int = 0
    behind_parent: int = 0

    @classmethod
    def from_annotated(cls, run: AnnotatedRun) -> Progress:
        counts = {status: getattr(run, f"n_{status}", 0) for status in UnitStatus.values}
        return cls(
            run.status,
            counts,
            run.enumeration_done,
            run.n_characters,
            held=getattr(run, "n_held", 0),
            behind_parent=getattr(run, "n_behind_parent", 0),
        )

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def in_flight(self) -> int:
        return sum(self.counts[status] for status in UnitStatus.in_flight)

    @property
    def cancelled(self) -> int:
        """Units that will not run: a part of their own, neither done nor to do."""
        return self.counts[UnitStatus.CANCELLED]

    @property
    def done(self) -> int:
        """Units that ran: succeeded, skipped or failed."""
        return self.total - self.in_flight - self.cancelled

    @property
    def is_finished(self) -> bool:
        return self.status in RunStatus.terminal

    @property
    def percent(self) -> int:
        """The share of units done, rounded down: 100 only once every unit ran (a cancelled
        run stops short of it by its cancelled units)."""
        if not self.total:
            return 100 if self.is_finished else 0
        return self.done * 100 // self.total

    def as_dict(self) -> dict[str, Any]:
        return {
            "percent": self.percent,
            "total": self.total,
            "done": self.done,
            "in_flight": self.in_flight,
            "cancelled": self.cancelled,
            "enumeration_done": self.enumeration_done,
            "units": self.counts,
            "billed_characters": self.billed_characters,
        }


@dataclass
class RunReport:
    """Everything the run page and the status endpoint show about a run's units."""

    progress: Progress
    by_locale: dict[str, dict[str, int]] = field(default_factory=dict)
    by_model: dict[str, dict[str, int]] = field(default_factory=dict)  # by "app.Model" label
    model_names: dict[str, str] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)  # every error code, skips included
    failures: dict[str, int] = field(default_factory=dict)  # error codes of failed units
    eta_seconds: int | None = None
    no_worker: bool = False

    @property
    def outcomes(self) -> dict[str, int]:
        """Units held for review, and skips by why (the error codes of the tally)."""
        return {
            "held_for_review": self.errors.get(ErrorCode.HELD_FOR_REVIEW, 0),
            "skipped_unchanged": self.errors.get(ErrorCode.UNCHANGED, 0),
            "skipped_parent_failed": self.errors.get(ErrorCode.PARENT_NOT_TRANSLATED, 0),
        }


def run_report(run: Run) -> RunReport:
    """A run's progress and breakdowns: one query over its tally, whatever its size."""
    rows = (
        RunTally.objects.filter(run_id=run.pk)
        .values_list("target_locale__language_code", "content_type_id", "status", "error_code")
        .annotate(n=Sum("units"), chars=Sum("billed_characters"))
        .order_by()
    )
    counts = dict.fromkeys(UnitStatus.values, 0)
    report = RunReport(progress=Progress(run.status, counts, run.enumeration_done))
    for code, content_type_id, status, error_code, n, chars in rows:
        report.progress.billed_characters += chars
        if n:
            add_group(report, code, content_type_id, status, error_code, n)
    report.by_locale = dict(sorted(report.by_locale.items()))
    report.by_model = dict(sorted(report.by_model.items(), key=lambda i: report.model_names[i[0]]))
    report.eta_seconds = eta_seconds(run, report.progress)
    report.no_worker = has_no_worker(run, report.progress)
    return report


def add_group(
    report: RunReport, code: str, content_type_id: int, status: str, error_code: str, n: int
) -> None:
    """Count ``n`` units of one tally group into the report's totals and breakdowns."""
    report.progress.counts[status] += n
    label, name = model_label_and_name(content_type_id)
    report.model_names[label] = name
    add(report.by_locale, code, status, n)
    add(report.by_model, label, status, n)
    if error_code:
        report.errors[error_code] = report.errors.get(error_code, 0) + n
        if status == UnitStatus.FAILED:
            report.failures[error_code] = report.failures.get(error_code, 0) + n


def add(table: dict[str, dict[str, int]], key: str, status: str, n: int) -> None:
    row = table.setdefault(key, dict.fromkeys(UnitStatus.values, 0))
    row[status] += n


def model_label_and_name(content_type_id: int) -> tuple[str, str]:
    # ContentType's manager caches by id, so this costs a query once per model per process.
    model = ContentType.objects.get_for_id(content_type_id).model_class()
    if model is None:
        return str(content_type_id), "?"
    label = f"{model._meta.app_label}.{model.__name__}"
    return label, str(capfirst(model._meta.verbose_name_plural))


def eta_seconds(run: Run, progress: Progress) -> int | None:
    """Remaining time at the average pace since the run started, None when unknown."""
    if progress.is_finished or run.status == RunStatus.PAUSED or not run.started_at:
        return None
    if not progress.done or not progress.in_flight:
        return None
    elapsed = (timezone.now() - run.started_at).total_seconds()
    return round(elapsed / progress.done * progress.in_flight)


def has_no_worker(run: Run, progress: Progress, now: datetime | None = None) -> bool:
    """True when work is waiting and no worker has touched the run for a while."""
    return seconds_without_worker(run, now, counts=progress.counts) is not None
