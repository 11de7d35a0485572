"""``sync status|pause|resume``: automatic sync from the command line.

``status`` shows whether sync is on, the global switch, each site's configuration, the changes
waiting and the latest automatic runs (a run waiting for its budget says so); ``pause`` and
``resume`` flip the global switch, or one site's with ``--site``. With ``--json`` stdout is one
JSON document (the status after the action) and the sentence saying what was done goes to
stderr. Switches are audit-logged without a user (the command line has none).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from ... import api
from .controls import refuse

SYNC_ACTIONS = ("status", "pause", "resume")


def add_sync_arguments(sync: CommandParser) -> None:
    sync.add_argument("sync_action", choices=SYNC_ACTIONS, help="What to do.")
    sync.add_argument(
        "--site",
        metavar="HOSTNAME_OR_ID",
        help="pause/resume: only this site's sync (its hostname or id).",
    )
    sync.add_argument("--json", action="store_true", help="Print one JSON document.")


def handle_sync(command: Any, options: dict[str, Any]) -> None:
    action = options["sync_action"]
    human = command.stderr if options["json"] else command.stdout
    if action == "pause":
        human.write(pause(options["site"]))
    elif action == "resume":
        human.write(resume(options["site"]))
    status = api.sync_status()
    if options["json"]:
        command.stdout.write(json.dumps(status, indent=2))
    elif action == "status":
        command.stdout.write("\n".join(status_lines(status)))


def configuration_id(site: str) -> int:
    for row in api.sync_status()["configurations"]:
        if site in (str(row["id"]), row["site"], row["site"].split(":")[0]):
            return int(row["id"])
    known = ", ".join(row["site"] for row in api.sync_status()["configurations"]) or "none"
    raise refuse(f"No automatic sync is configured for the site {site!r}. Configured: {known}.")


def pause(site: str | None) -> str:
    if site is None:
        runs = api.pause_automatic_translation()
        return f"Paused all automatic translation ({runs} automatic run(s) paused)."
    if not api.set_site_sync_paused(configuration_id(site), True):
        return f"Automatic sync of {site} was already paused."
    return f"Paused automatic sync of {site}; its changes are remembered."


def resume(site: str | None) -> str:
    if site is None:
        runs = api.resume_automatic_translation()
        return f"Resumed automatic translation ({runs} run(s) resumed); remembered changes follow."
    if not api.set_site_sync_paused(configuration_id(site), False):
        return f"Automatic sync of {site} was not paused."
    return f"Resumed automatic sync of {site}; its remembered changes follow."


def status_lines(status: dict[str, Any]) -> list[str]:
    if not status["enabled"]:
        head = 'Automatic sync is off (WAGTAIL_BULK_TRANSLATE["SYNC_ENABLED"]).'
    elif status["paused"]:
        head = "Automatic sync is on, and all automatic translation is PAUSED."
    else:
        head = (
            f"Automatic sync is on: changes are translated {status['window_seconds']:g} s after "
            f"their first publish, as {status['publish_policy']}."
        )
    lines = [head, ""]
    for row in status["configurations"]:
        state = "paused" if row["paused"] else ("on" if row["enabled"] else "off")
        snippets = f" and {', '.join(row['snippet_models'])}" if row["snippet_models"] else ""
        lines.append(
            f"  {row['site']} ({state}): “{row['tree']['title']}” tree{snippets} "
            f"→ {', '.join(row['locales']) or 'no locale'}"
        )
    if not status["configurations"]:
        lines.append("  No site is configured (Bulk translation → Automatic sync).")
    lines.append(f"\n{status['pending_total']} change(s) waiting.")
    for change in status["pending"][:20]:
        why = f": {change['waiting_reason']}" if change["waiting_reason"] else ""
        lines.append(
            f"  {change['title']} ({change['content_type']} {change['object_id']}, "
            f"{change['changes']} publish(es)) due {change['due_at']}{why}"
        )
    for run in status["recent_runs"]:
        budget = " (waiting for budget)" if run["waiting_for_budget"] else ""
        lines.append(
            f"  run #{run['id']} {run['status']}{budget}, published by {run['published_by']}"
        )
    return lines
