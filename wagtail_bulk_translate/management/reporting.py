"""Plain-text progress lines and summaries of runs, for the command line."""

from __future__ import annotations

from typing import Any

from ..models import Run, UnitStatus
from ..runs.preflight import Preflight

BAR_WIDTH = 30


def progress_line(run: Run, counts: dict[str, int]) -> str:
    total = run.units_total
    done = sum(counts[status] for status in UnitStatus.terminal)
    filled = int(BAR_WIDTH * done / total) if total else 0
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    suffix = "" if run.enumeration_done else " (enumerating…)"
    return (
        f"[{bar}] {done}/{total} units · {counts['succeeded']} ok · "
        f"{counts['skipped']} skipped · {counts['failed']} failed · {run.status}{suffix}"
    )


def format_summary(summary: dict[str, Any]) -> str:
    units = ", ".join(f"{status} {n}" for status, n in summary["units"].items() if n)
    errors = ", ".join(f"{code} {n}" for code, n in summary["errors"].items())
    lines = [
        f"Run #{summary['id']} ({'canary' if summary['canary'] else summary['mode']}): "
        f"{summary['status']}",
        f"  {summary['source_locale']} → {', '.join(summary['target_locales'])}",
        f"  units: {summary['units_total']} ({units or 'none yet'})",
        f"  strings translated: {summary['strings_translated']}, "
        f"characters billed: {summary['billed_characters']} "
        f"(billed for units that failed: {summary['billed_characters_for_failed_units']})",
    ]
    if errors:
        lines.append(f"  reasons: {errors}")
    if summary["duration_seconds"] is not None:
        lines.append(f"  time: {summary['duration_seconds']} s")
    return "\n".join(lines)


def format_preflight(result: Preflight) -> str:
    kind = "exact" if result.exact else f"estimated from {result.sampled_objects} objects"
    lines = [f"Units: {result.units_total}"]
    for label, objects in result.objects_by_model.items():
        lines.append(f"  {label}: {objects} object(s), {result.units_by_model[label]} unit(s)")
    lines.append(f"To translate ({kind}):")
    for code, strings in result.strings_to_translate.items():
        characters = result.characters_to_bill[code]
        lines.append(f"  {code}: {strings} string(s), {characters} billable character(s)")
    lines.append(
        f"Cost: about {result.estimated_cost} {result.currency} "
        f"at {result.price_per_million} {result.currency} per million characters"
    )
    if result.usage:
        used, limit = result.usage.characters_used, result.usage.character_limit
        lines.append(f"Translator usage: {used} of {limit or 'unlimited'} characters")
    lines.extend(f"Warning: {warning}" for warning in result.warnings)
    return "\n".join(lines)
