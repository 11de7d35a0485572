"""Reports on a run: its summary, its units per locale and status, its error codes."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..budgets.report import budget_report
from ..engine.janitor import keep_janitor_alive
from ..engine.ledger import Billing, billing
from ..errors import ErrorCode
from ..glossary.outdated import outdated_warnings
from ..models import Run, RunStatus, RunTally, UnitStatus
from ..scope.definition import Scope
from ..scope.readiness import count_unpublished, untranslatable_in_scope
from ..translators.loading import TranslatorLoadError, load_translator_class
from ..translators.pins import pin_for_locale
from .profile_spend import class_of_profile, spend_by_profile
from .spend import bills_by_token, spend_report


def run_summary(run: Run) -> dict[str, Any]:
    """A JSON-serialisable report of a run (used by `bulk_translate status --json`).

    Someone is watching the run: if its janitor's chain died, this re-arms it.
    """
    keep_janitor_alive()
    run.refresh_from_db()
    totals = run.unit_totals()
    by_status_and_code = status_and_code_counts(run)
    billed = billing(run)
    spent = spend_report(run)
    codes = dict(run.target_locales.values_list("pk", "language_code"))
    duration = None
    if run.started_at:
        end = run.finished_at or timezone.now()
        duration = round((end - run.started_at).total_seconds(), 1)
    return {
        "id": run.pk,
        "status": run.status,
        "mode": run.mode,
        "canary": run.is_canary,
        "canary_size": run.canary_size,
        "publish_policy": run.publish_policy,
        "content_source": run.content_source,
        "source_locale": run.source_locale.language_code,
        "target_locales": sorted(codes.values()),
        "enumeration_done": run.enumeration_done,
        "units_total": run.units_total,
        "units": run.unit_counts(),
        # The units' outcomes as an editor reads them: written as drafts for review because a
        # text could not be translated, and skips by why (unchanged, or behind a parent).
        "outcomes": outcomes_of(by_status_and_code),
        "units_by_locale": units_by_locale(run),
        "strings_translated": totals["strings_translated"],
        **sent_to_translator(run, billed),
        # Tokens and money, for translators that pay by the token (None for the others).
        "spend": spent,
        # Per translator profile: its locales, what it was sent and what it cost.
        "translators": spend_by_profile(run, codes, billed, spent),
        "errors": errors_of(by_status_and_code),
        "created_at": run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "duration_seconds": duration,
        "error_code": run.error_code,
        "error_message": run.error_message,
        # The caps that hold the run, what is left of each, and when a budget pause ends.
        "budget": budget_report(run),
        # Page child counts found wrong in the subtrees the run wrote, repaired at its end.
        "tree_repairs": run.tree_repairs,
        "translator_change": run.translator_change,
        # Pairs whose DeepL glossary is out of date while the run translates into them.
        "glossary_warnings": glossary_warnings(run),
    }


def glossary_warnings(run: Run) -> list[str]:
    """Warnings for the run's pairs whose synced glossary is out of date, while it runs with a
    translator that uses such glossaries (DeepL)."""
    if run.status not in RunStatus.active:
        return []
    targets = [
        pk
        for pk in run.target_locales.values_list("pk", flat=True)
        if uses_glossaries(pin_for_locale(run, pk).class_path)
    ]
    return outdated_warnings(run.source_locale_id, targets) if targets else []


def uses_glossaries(class_path: str) -> bool:
    try:
        return hasattr(load_translator_class(class_path), "glossaries")
    except TranslatorLoadError:
        return False


def sent_to_translator(run: Run, billed: Billing) -> dict[str, Any]:
    """What went to the translator, whatever became of the units (the billing ledger): texts
    and characters sent (counted like the estimate), what the provider billed (DeepL reports
    it; 0 for translators that do not, None for those that pay by the token: their ``spend``
    says it), and what went out without an answer."""
    by_token = bills_by_token(run)
    return {
        "translator": ", ".join(dict.fromkeys(class_of_profile(run).values())),
        "texts_sent": billed.texts_sent,
        "characters_sent": billed.characters_sent,
        "billed_characters": None if by_token else billed.billed,
        "billed_characters_for_failed_units": None if by_token else billed.billed_for_failed_units,
        "sent_without_answer": {
            "texts": billed.unanswered_texts,
            "characters": billed.unanswered_characters,
        },
    }


def translator_name(class_path: str) -> str:
    """The translator as people know it: its class name (the run pins the dotted path)."""
    return class_path.rsplit(".", 1)[-1]


def run_details(run: Run) -> dict[str, Any]:
    """What the summary leaves out because its cost grows with the run: objects with
    unpublished changes, models in scope that cannot be translated, whether it was promoted."""
    scope = Scope.from_json(run.scope)
    return {
        "unpublished_changes": unpublished_changes(run),
        "untranslatable": [
            item.as_dict() for item in untranslatable_in_scope(scope, run.source_locale)
        ],
        "promoted": run.promotions.exists(),
    }


def unpublished_changes(run: Run) -> int:
    """How many of the run's objects have unpublished changes now (not translated when the
    run translates live content)."""
    objects = run.units.values_list("content_type_id", "object_id").distinct().order_by()
    return count_unpublished(objects)


def units_by_locale(run: Run) -> dict[str, dict[str, int]]:
    """{locale code: {unit status: count}}, statuses without units left out (the tally)."""
    rows = RunTally.objects.of_run(run.pk).units_per("target_locale__language_code", "status")
    result: dict[str, dict[str, int]] = {}
    for code, status, n in rows:
        result.setdefault(code, {})[status] = n
    return {code: result[code] for code in sorted(result)}


def outcome_counts(run: Run) -> dict[str, int]:
    """{"held_for_review", "skipped_unchanged", "skipped_parent_failed", "skipped_other"}."""
    return outcomes_of(status_and_code_counts(run))


def status_and_code_counts(run: Run) -> dict[tuple[str, str], int]:
    """{(unit status, error code): units} of the run (its tally: a few rows)."""
    rows = RunTally.objects.of_run(run.pk).units_per("status", "error_code")
    return {(status, code): n for status, code, n in rows}


def outcomes_of(by_code: dict[tuple[str, str], int]) -> dict[str, int]:
    skipped = sum(n for (status, _code), n in by_code.items() if status == UnitStatus.SKIPPED)
    unchanged = by_code.get((UnitStatus.SKIPPED, ErrorCode.UNCHANGED), 0)
    parent = by_code.get((UnitStatus.SKIPPED, ErrorCode.PARENT_NOT_TRANSLATED), 0)
    return {
        "held_for_review": by_code.get((UnitStatus.SUCCEEDED, ErrorCode.HELD_FOR_REVIEW), 0),
        "skipped_unchanged": unchanged,
        "skipped_parent_failed": parent,
        "skipped_other": skipped - unchanged - parent,
    }


def errors_of(by_code: dict[tuple[str, str], int]) -> dict[str, int]:
    """Units per error code (skips and held included), by code."""
    errors: dict[str, int] = {}
    for (_status, code), n in by_code.items():
        if code:
            errors[code] = errors.get(code, 0) + n
    return dict(sorted(errors.items()))


def error_breakdown(run: Run) -> dict[str, int]:
    return dict(RunTally.objects.of_run(run.pk).exclude(error_code="").units_per("error_code"))
