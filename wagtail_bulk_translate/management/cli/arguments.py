"""The parser of ``manage.py bulk_translate``: every subcommand, option, choice and default."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from django.core.management.base import CommandParser

from ...errors import ErrorCode
from ...models import ContentSource, Mode, PublishPolicy, UnitStatus
from .acting import add_as_user_argument
from .budgets import add_budget_arguments
from .ids import PAGE_ID, RUN_ID
from .review import add_review_arguments
from .sync import add_sync_arguments

# Counts are stored in 32-bit integer columns (PostgreSQL's ``integer``).
MAX_COUNT = 2_147_483_647
MAX_TIMEOUT_SECONDS = 7 * 24 * 3600

CONTROL_HELP = {
    "cancel": "Cancel a run: pending units are cancelled, units in flight finish.",
    "pause": "Pause a run: no new work starts until it is resumed.",
    "resume": "Resume a paused run.",
    "retry": "Queue a run's failed units again (all, or by --model / --locale / --error-code).",
    "promote": "Start the full run of a finished canary without redoing its units.",
    "revert": "Undo what a run wrote (targets edited since are kept and reported).",
}
WAITING_CONTROLS = ("retry", "revert", "promote", "resume")
# Controls after which the run writes with the permissions of whoever asked.
ACTING_CONTROLS = ("retry", "promote")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Shows every option's default (when it has one worth showing) after its help text."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "%(default)" in text or default in (None, False, [], argparse.SUPPRESS):
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return f"{text} (default: %(default)s)"
        return text


def bounded_int(name: str, low: int, high: int = MAX_COUNT) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high], refused with a message naming the range."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"invalid int value: {value!r} ({name} is a whole number)"
            ) from None
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(
                f"{name} must be between {low} and {high}, got {number}"
            )
        return number

    parse.__name__ = "int"  # argparse names the type in "invalid int value" messages
    return parse


def timeout_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of seconds: {value!r}") from None
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_TIMEOUT_SECONDS:
        raise argparse.ArgumentTypeError(
            f"--timeout must be between 0 and {MAX_TIMEOUT_SECONDS} seconds, got {value}"
        )
    return seconds


def add_subcommands(parser: CommandParser) -> None:
    sub = parser.add_subparsers(
        dest="action", required=True, parser_class=CommandParser, metavar="SUBCOMMAND"
    )

    def subcommand(name: str, text: str) -> CommandParser:
        return sub.add_parser(
            name,
            help=text,
            description=text,
            formatter_class=HelpFormatter,
            called_from_command_line=True,
        )

    add_start_arguments(subcommand("start", "Start a run (or, with --estimate, price it)."))
    status = subcommand("status", "Show a run.")
    status.add_argument("run_id", nargs="?", type=RUN_ID, help="Run id (default: the latest run).")
    add_wait_arguments(status)
    add_report_arguments(subcommand)
    for name, text in CONTROL_HELP.items():
        add_control_arguments(subcommand(name, text), name)
    add_review_arguments(subcommand("review", "The review queue: flagged translations."))
    add_sync_arguments(
        subcommand("sync", "Automatic sync: its state, pause or resume it (all, or a site).")
    )
    add_budget_arguments(
        subcommand("budgets", "Spending caps: what is left of each, set or remove a cap.")
    )


def add_report_arguments(subcommand: Callable[[str, str], CommandParser]) -> None:
    runs = subcommand("list", "List recent runs, newest first, one line each.")
    runs.add_argument(
        "--limit", type=bounded_int("--limit", 1, 1000), default=20, help="Runs to show."
    )
    runs.add_argument("--json", action="store_true", help="Print the runs as one JSON document.")
    units = subcommand(
        "units", "List a run's units: which objects succeeded, were skipped or failed, and why."
    )
    units.add_argument("run_id", type=RUN_ID, help="Run id.")
    units.add_argument("--status", choices=UnitStatus.values, help="Only units in this status.")
    units.add_argument("--locale", metavar="CODE", help="Only units into this target locale.")
    units.add_argument("--model", metavar="APP.MODEL", help="Only units of this model.")
    units.add_argument(
        "--limit", type=bounded_int("--limit", 1, 100_000), default=200, help="Units to show."
    )
    units.add_argument("--json", action="store_true", help="Print the units as one JSON document.")


def add_control_arguments(control: CommandParser, name: str) -> None:
    control.add_argument("run_id", type=RUN_ID, help="Run id.")
    if name == "retry":
        control.add_argument(
            "--model", action="append", default=[], metavar="APP.MODEL", help="Repeatable."
        )
        control.add_argument(
            "--locale", action="append", default=[], metavar="CODE", help="Repeatable."
        )
        control.add_argument(
            "--error-code",
            action="append",
            default=[],
            choices=ErrorCode.values,
            metavar="CODE",
            help=f"Repeatable; one of: {', '.join(ErrorCode.values)}.",
        )
    if name in ACTING_CONTROLS:
        add_as_user_argument(control)
    if name in WAITING_CONTROLS:
        add_wait_arguments(control)
    else:
        control.add_argument(
            "--json", action="store_true", help="Print the run as one JSON document."
        )


def add_wait_arguments(parser: CommandParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--wait",
        action="store_true",
        help="Wait for the run to end, showing progress. Ctrl-C stops waiting; the run goes on.",
    )
    parser.add_argument(
        "--timeout",
        type=timeout_seconds,
        metavar="SECONDS",
        help="With --wait: stop waiting after this many seconds (exit 5; the run goes on). "
        "Without it, --wait waits until the run ends.",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="Print the result as one JSON document on stdout (progress goes to stderr).",
    )


def add_start_arguments(parser: CommandParser) -> None:
    what = parser.add_argument_group("scope")
    what.add_argument(
        "--all", action="store_true", help="Every page tree, translatable snippet and setting."
    )
    what.add_argument(
        "--subtree",
        action="append",
        type=PAGE_ID,
        default=[],
        metavar="PAGE_ID",
        help="A page and its descendants (repeatable).",
    )
    what.add_argument(
        "--page",
        action="append",
        type=PAGE_ID,
        default=[],
        metavar="PAGE_ID",
        help="A single page (repeatable).",
    )
    what.add_argument(
        "--snippets",
        action="append",
        default=[],
        metavar="APP.MODEL",
        help="Translatable snippet models (comma-separated, repeatable).",
    )
    # Not "--settings": Django's own global --settings option would capture it.
    what.add_argument(
        "--setting-models",
        action="append",
        default=[],
        metavar="APP.MODEL",
        help="Settings models (comma-separated, repeatable).",
    )
    what.add_argument(
        "--object",
        action="append",
        default=[],
        metavar="APP.MODEL:PK",
        help="One object (repeatable).",
    )
    what.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="APP.MODEL",
        help="Models to leave out (comma-separated, repeatable).",
    )
    how = parser.add_argument_group("run")
    how.add_argument("--source", help="Source locale code (default: the default locale).")
    how.add_argument(
        "--locales", required=True, help="Target locale codes, comma-separated, or 'all'."
    )
    how.add_argument(
        "--mode",
        default=Mode.CHANGED,
        choices=Mode.values,
        help="changed: new or changed content only; refresh: every machine translation again; "
        "overwrite: manual translations too.",
    )
    how.add_argument(
        "--publish",
        default=PublishPolicy.DRAFT,
        choices=PublishPolicy.values,
        help="Save targets as drafts, publish them, or mirror the source's live status.",
    )
    how.add_argument(
        "--content",
        default=ContentSource.LIVE,
        choices=ContentSource.values,
        help="Translate the live (published) content or the latest draft.",
    )
    how.add_argument(
        "--canary",
        type=bounded_int("--canary", 1),
        metavar="N",
        help="Translate a sample of N units first (promote it to run the rest).",
    )
    how.add_argument(
        "--translator",
        action="append",
        default=[],
        metavar="[LOCALE=]PROFILE",
        help="Translator profile (a key of TRANSLATORS) for every locale, or for one locale "
        "with LOCALE=PROFILE (repeatable; default: LOCALE_TRANSLATORS' routing).",
    )
    how.add_argument(
        "--estimate",
        action="store_true",
        help="Only show what the run would translate and cost (nothing is started).",
    )
    add_as_user_argument(how)
    add_wait_arguments(parser.add_argument_group("waiting"))
