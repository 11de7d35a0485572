"""``review list|accept|dismiss|retranslate``: the review queue from the command line.

``list`` shows the units waiting for review (site-wide, or of ``--run``) with the reason of each
flag; ``accept`` and ``dismiss`` take one or more unit ids; ``retranslate`` one, and with
``--term "SOURCE=TARGET"`` (or ``--never-translate TERM``) first adds that term to the glossary
for the unit's language pair, as the admin's "Add a term and translate again". With ``--json``
stdout is one JSON document and the sentence saying what was done goes to stderr. Actions act
as the system and are audit-logged without a user, unless ``--as-user`` names the editor whose
permissions they use (and who the audit log records).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from django.core.management.base import CommandParser

from ... import api
from .acting import acting_user, add_as_user_argument
from .controls import refuse
from .ids import RUN_ID, UNIT_ID

REVIEW_ACTIONS = ("list", "accept", "dismiss", "retranslate")


def add_review_arguments(review: CommandParser) -> None:
    review.add_argument("review_action", choices=REVIEW_ACTIONS, help="What to do.")
    review.add_argument("unit_ids", nargs="*", type=UNIT_ID, metavar="UNIT", help="Unit ids.")
    review.add_argument("--run", type=RUN_ID, dest="review_run", help="list: only this run.")
    review.add_argument(
        "--state",
        default=api.ReviewState.PENDING,
        choices=["all", *api.ReviewState.values],
        help="list: reviews in this state (default: pending).",
    )
    term = review.add_mutually_exclusive_group()
    term.add_argument(
        "--term",
        type=term_pair,
        metavar="SOURCE=TARGET",
        help="retranslate: first add this term (and its translation into the unit's language).",
    )
    term.add_argument(
        "--never-translate",
        metavar="TERM",
        help="retranslate: first add this term, never to be translated (a brand name).",
    )
    review.add_argument("--json", action="store_true", help="Print one JSON document.")
    add_as_user_argument(review)


def term_pair(value: str) -> tuple[str, str]:
    source, equals, target = value.partition("=")
    if not equals or not source.strip() or not target.strip():
        raise argparse.ArgumentTypeError(
            f'--term is SOURCE=TARGET, e.g. --term "Summary=Résumé", got {value!r}'
        )
    return source.strip(), target.strip()


def handle_review(command: Any, options: dict[str, Any]) -> None:
    action, unit_ids = options["review_action"], options["unit_ids"]
    if action == "list":
        list_reviews(command, options)
        return
    if not unit_ids:
        raise refuse(f"review {action} needs unit ids: see them with review list.")
    if action == "retranslate" and len(unit_ids) != 1:
        raise refuse("review retranslate takes one unit id (each starts a one-unit run).")
    if action != "retranslate" and (options["term"] or options["never_translate"]):
        raise refuse("--term and --never-translate go with review retranslate only.")
    human = command.stderr if options["json"] else command.stdout
    if action == "retranslate":
        rows = [retranslate(unit_ids[0], options, human)]
    else:
        user = acting_user(options)
        rows = [act(action, unit_id, human, user) for unit_id in unit_ids]
    if options["json"]:
        command.stdout.write(json.dumps(rows, indent=2))


def act(action: str, unit_id: int, human: Any, user: Any = None) -> dict[str, Any]:
    """Accept or dismiss one unit's review."""
    if action == "accept":
        review, published = api.accept_review(unit_id, user)
        human.write(f"Accepted unit #{unit_id}" + (" and published it." if published else "."))
        return {**api.review_row(review), "published": published}
    review = api.dismiss_review(unit_id, user)
    human.write(f"Dismissed the review of unit #{unit_id}; its target is left as it is.")
    return api.review_row(review)


def retranslate(unit_id: int, options: dict[str, Any], human: Any) -> dict[str, Any]:
    added = ""
    if options["term"] or options["never_translate"]:
        source, target = options["term"] or (options["never_translate"], "")
        term, run = api.retranslate_with_term(
            unit_id,
            source,
            target,
            never_translate=bool(options["never_translate"]),
            user=acting_user(options),
        )
        added = f"Added “{term.source_term}” to the glossary. "
    else:
        run = api.retranslate_review(unit_id, acting_user(options))
    human.write(f"{added}Translating unit #{unit_id} again in run #{run.pk}.")
    return {**api.review_row(api.review_of(unit_id)), "retranslation_run": run.pk}


def list_reviews(command: Any, options: dict[str, Any]) -> None:
    state = "" if options["state"] == "all" else options["state"]
    rows = [api.review_row(r) for r in api.review_queue(options["review_run"], state)]
    if options["json"]:
        command.stdout.write(json.dumps(rows, indent=2))
    elif not rows:
        command.stdout.write("No translation is waiting for review.")
    else:
        command.stdout.write("\n".join(review_line(row) for row in rows))


def review_line(row: dict[str, Any]) -> str:
    reasons = "; ".join(dict.fromkeys(flag["message"] for flag in row["flags"]))
    return (
        f"unit #{row['unit']} (run #{row['run']}) {row['model']} {row['object_id']} → "
        f"{row['locale']} [{row['state']}]: {reasons}"
    )
