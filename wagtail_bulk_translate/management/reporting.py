"""Plain-text reports of runs for the command line: progress, summaries, next steps, units."""

from __future__ import annotations

import shlex
from typing import Any

from ..errors import ErrorCode
from ..models import Run, RunStatus, UnitStatus
from ..runs.preflight import Preflight
from ..runs.spend import spend_text

BAR_WIDTH = 30
COMMAND = "manage.py bulk_translate"


def progress_line(run: Run, counts: dict[str, int]) -> str:
    if run.is_canary:
        return canary_progress_line(run, counts)
    return bar_line(run, counts, run.units_total)


def bar_line(run: Run, counts: dict[str, int], total: int) -> str:
    done = sum(counts[status] for status in UnitStatus.terminal)
    filled = int(BAR_WIDTH * done / total) if total else 0
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    suffix = "" if run.enumeration_done else " (enumerating…)"
    return (
        f"[{bar}] {done}/{total} units · {counts['succeeded']} ok · "
        f"{counts['skipped']} skipped · {counts['failed']} failed · {run.status}{suffix}"
    )


def canary_progress_line(run: Run, counts: dict[str, int]) -> str:
    """A canary's units wait as "not sampled" until the sample is drawn: they are neither work
    nor skips, so the bar counts the sample alone, once there is one."""
    if not run.enumeration_done:
        return (
            f"listing objects: {run.units_total} units so far · the sample of "
            f"{run.canary_size} is drawn once listing ends · {run.status}"
        )
    not_sampled = run.units.filter(
        status=UnitStatus.SKIPPED, error_code=ErrorCode.CANARY_NOT_SAMPLED
    ).count()
    sampled = {**counts, UnitStatus.SKIPPED: counts[UnitStatus.SKIPPED] - not_sampled}
    return (
        bar_line(run, sampled, run.units_total - not_sampled)
        + f" (sampled among {run.units_total})"
    )


def outcome_lines(outcomes: dict[str, int]) -> list[str]:
    """Held for review, and the skips by why, each on its own line when there are any."""
    lines = []
    if outcomes.get("held_for_review"):
        lines.append(
            f"  held for review: {outcomes['held_for_review']} (written as drafts, a text left "
            "in the source language; see the review queue)"
        )
    skips = [
        f"{outcomes[key]} {label}"
        for key, label in (
            ("skipped_unchanged", "unchanged"),
            ("skipped_parent_failed", "because their parent page could not be written"),
            ("skipped_other", "for other reasons"),
        )
        if outcomes.get(key)
    ]
    if skips:
        lines.append(f"  skipped: {', '.join(skips)}")
    return lines


def format_summary(summary: dict[str, Any]) -> str:
    units = ", ".join(f"{status} {n}" for status, n in summary["units"].items() if n)
    errors = ", ".join(f"{code} {n}" for code, n in summary["errors"].items())
    lines = [
        f"Run #{summary['id']} ({'canary' if summary['canary'] else summary['mode']}): "
        f"{summary['status']}",
        f"  {summary['source_locale']} → {', '.join(summary['target_locales'])}"
        f" with {summary['translator']}",
        f"  units: {summary['units_total']} ({units or 'none yet'})",
        *outcome_lines(summary.get("outcomes") or {}),
        f"  strings translated: {summary['strings_translated']} (reused translations included)",
        *sent_lines(summary),
    ]
    if summary.get("error_message") and summary["status"] == RunStatus.FAILED:
        lines.insert(1, f"  error: {summary['error_message']}")
    lines.extend(spend_lines(summary))
    lines.extend(profile_lines(summary.get("translators") or []))
    if "content_source" in summary:
        lines.append(content_line(summary["content_source"], summary.get("unpublished_changes")))
    if errors:
        lines.append(f"  reasons: {errors}")
    lines.extend(
        f"  cannot translate {item['model']}: {item['reason']} — {item['fix']}"
        for item in summary.get("untranslatable", [])
    )
    if summary["duration_seconds"] is not None:
        lines.append(f"  time: {summary['duration_seconds']} s")
    if summary.get("tree_repairs"):
        lines.append(f"  page tree: {summary['tree_repairs']} wrong child count(s) repaired")
    if summary.get("translator_change"):
        lines.append(f"  translator changed: {summary['translator_change']}")
    lines.extend(f"Warning: {warning}" for warning in summary.get("glossary_warnings", []))
    lines.extend(f"Next: {step}" for step in next_steps(summary))
    return "\n".join(lines)


def profile_lines(profiles: list[dict[str, Any]]) -> list[str]:
    """One line per translator profile, for runs that use more than one."""
    if len(profiles) < 2:
        return []
    lines = []
    for row in profiles:
        line = (
            f"  profile {row['label']} ({row['translator']}) for {', '.join(row['locales'])}: "
            f"{row['texts_sent']:,} texts, {row['characters_sent']:,} characters sent"
        )
        if row["spend"]:
            line += f"; spent {spend_text(row['spend'])}"
        lines.append(line)
    return lines


def spend_lines(summary: dict[str, Any]) -> list[str]:
    """Tokens and cost, for runs whose translator pays by the token."""
    report = summary.get("spend")
    return [f"  spent: {spend_text(report)}"] if report else []


def sent_lines(summary: dict[str, Any]) -> list[str]:
    """What went to the translator, in the words and units of the estimate."""
    line = (
        f"  sent to the translator: {summary['texts_sent']} text(s), "
        f"{summary['characters_sent']} character(s)"
    )
    if summary["billed_characters"]:
        line += (
            f"; billed: {summary['billed_characters']} character(s) "
            f"({summary['billed_characters_for_failed_units']} for units that failed)"
        )
    lines = [line]
    lost = summary["sent_without_answer"]
    if lost["texts"]:
        lines.append(
            f"  sent without an answer: {lost['texts']} text(s), {lost['characters']} "
            "character(s) (a timeout or dropped connection: the provider may have billed "
            "them; they were sent again)"
        )
    return lines


def to_send_lines(result: Preflight) -> list[str]:
    """What the run would send to the translator, in the words of the run's summary."""
    kind = "exact" if result.exact else f"estimated from {result.sampled_objects} objects"
    lines = [f"To send to {result.translator or 'the translator'} ({kind}):"]
    for code, texts in result.strings_to_translate.items():
        characters = result.characters_to_bill[code]
        lines.append(f"  {code}: {texts} text(s), {characters} character(s)")
    return lines


def content_line(content_source: str, unpublished: int | None) -> str:
    line = f"  content translated: {content_source} (--content {content_source})"
    if unpublished:
        other = "draft" if content_source == "live" else "live"
        line += f"; {unpublished} object(s) have unpublished changes" + (
            f" (use --content {other} to translate them)" if other == "draft" else ""
        )
    return line


def next_steps(summary: dict[str, Any]) -> list[str]:
    """What to do after reading this summary, as commands to copy."""
    run_id, status, units = summary["id"], summary["status"], summary["units"]
    if status in RunStatus.active:
        steps = [f"follow it with `{COMMAND} status {run_id} --wait`"]
        if status == RunStatus.PAUSED:
            steps.append(f"resume it with `{COMMAND} resume {run_id}`")
        return steps
    steps = []
    if units.get(UnitStatus.FAILED):
        steps.append(
            f"{units[UnitStatus.FAILED]} unit(s) failed — see "
            f"`{COMMAND} units {run_id} --status failed`, then `{COMMAND} retry {run_id}`"
        )
    if status == RunStatus.CANCELLED:
        steps.append(f"start a new run with the same scope (see `{COMMAND} list`)")
    if status in (RunStatus.SUCCEEDED, RunStatus.PARTIAL) and units.get(UnitStatus.SUCCEEDED):
        if summary["canary"] and not summary.get("promoted"):
            steps.append(
                f"canary written — review it, then translate the rest with "
                f"`{COMMAND} promote {run_id}`"
            )
        elif summary["publish_policy"] == "draft":
            steps.append(
                "drafts written — review and publish them in the admin, or start the run "
                "with `--publish publish`"
            )
    return steps


def start_command(run: Run, *, whole_site: bool = False) -> str:
    """The ``start`` command line that asks for ``run``'s scope and options again."""
    scope = run.scope
    args = [COMMAND, "start"]
    if whole_site:
        args.append("--all")
    else:
        for root in scope.get("pages", []):
            args += ["--subtree" if root.get("descendants") else "--page", str(root["id"])]
        if scope.get("snippets"):
            args += ["--snippets", ",".join(scope["snippets"])]
        if scope.get("settings"):
            args += ["--setting-models", ",".join(scope["settings"])]
        for label, pk in scope.get("objects", []):
            args += ["--object", f"{label}:{pk}"]
    if scope.get("exclude_models"):
        args += ["--exclude", ",".join(scope["exclude_models"])]
    codes = sorted(run.target_locales.values_list("language_code", flat=True))
    args += ["--source", run.source_locale.language_code, "--locales", ",".join(codes)]
    args += ["--mode", run.mode, "--publish", run.publish_policy, "--content", run.content_source]
    return shlex.join(args)


def format_run_line(row: dict[str, Any]) -> str:
    units, outcomes = row["units"], row.get("outcomes") or {}
    kind = "canary" if row["canary"] else row["mode"]
    held = outcomes.get("held_for_review", 0)
    behind = outcomes.get("skipped_parent_failed", 0)
    return (
        f"#{row['id']:<5} {row['status']:<10} {kind:<9} {row['created_at'][:16].replace('T', ' ')}"
        f"  {row['source_locale']} → {','.join(row['target_locales'])}"
        f"  {row['units_total']} units ({units['succeeded'] - held} ok"
        + (f", {held} held for review" if held else "")
        + f", {units['skipped'] - behind} skipped"
        + (f", {behind} behind a failed parent" if behind else "")
        + f", {units['failed']} failed)"
    )


def spend_estimate_lines(result: Preflight) -> list[str]:
    """The preflight of a translator that pays by the token: its own estimate."""
    spend = result.spend
    assert spend is not None
    return [
        f"Tokens: about {spend.prompt_tokens:,} prompt + {spend.completion_tokens:,} completion "
        f"in about {spend.requests:,} requests (the translator's estimate)",
        f"Cost: about {result.estimated_cost} {result.currency} "
        "(from the translator's price table)",
    ]


def format_unit_line(row: dict[str, Any]) -> str:
    line = f"{row['status']:<9} {row['locale']:<6} {row['model']} {row['object_id']}"
    if row["object"]:
        line += f" {row['object']!r}"
    if row["error_code"]:
        line += f" — {row['error_code']}: {row['error_message']}"
    if row["edit_url"]:
        line += f"  {row['edit_url']}"
    return line


def format_preflight(result: Preflight) -> str:
    lines = [f"Units: {result.units_total}"]
    if result.units_needing_work is not None:
        lines.append(f"  with work to do: {result.units_needing_work} (the others are skipped)")
    for label, objects in result.objects_by_model.items():
        lines.append(f"  {label}: {objects} object(s), {result.units_by_model[label]} unit(s)")
    lines.extend(to_send_lines(result))
    lines.extend(
        f"  {code}: refused — the translator cannot translate into it (not counted)"
        for code in result.unsupported_locales
    )
    if result.spend is not None:
        lines.extend(spend_estimate_lines(result))
    else:
        lines.append(
            f"Cost: about {result.estimated_cost} {result.currency} "
            f"at {result.price_per_million} {result.currency} per million characters"
        )
    lines.append(content_line(result.content_source, result.unpublished_changes).strip())
    lines.extend(
        f"Cannot translate {item.model}: {item.reason} — {item.fix}"
        for item in result.untranslatable
    )
    if result.usage:
        used, limit = result.usage.characters_used, result.usage.character_limit
        lines.append(f"Translator usage: {used} of {limit or 'unlimited'} characters")
    lines.extend(f"Budget: {budget.text()}" for budget in result.budgets)
    lines.extend(f"Warning: {warning}" for warning in result.warnings)
    return "\n".join(lines)
