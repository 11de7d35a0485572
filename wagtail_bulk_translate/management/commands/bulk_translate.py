"""``manage.py bulk_translate``: start runs, report on them, and control them.

Exit codes: 0 succeeded (or started, without --wait), 1 failed, 2 bad arguments,
3 partially succeeded, 4 cancelled, 5 still running when --timeout expired.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from wagtail_bulk_translate import api
from wagtail_bulk_translate.errors import BulkTranslateError
from wagtail_bulk_translate.management.reporting import (
    format_preflight,
    format_summary,
    progress_line,
)
from wagtail_bulk_translate.models import (
    ContentSource,
    Mode,
    PublishPolicy,
    Run,
    RunStatus,
)

EXIT_CODES: dict[str, int] = {
    RunStatus.SUCCEEDED: 0,
    RunStatus.FAILED: 1,
    RunStatus.PARTIAL: 3,
    RunStatus.CANCELLED: 4,
    RunStatus.REVERTED: 0,
}
CONTROL_HELP = {
    "cancel": "Cancel a run: pending units are cancelled, units in flight finish.",
    "pause": "Pause a run: no new work starts until it is resumed.",
    "resume": "Resume a paused run.",
    "retry": "Queue a run's failed units again (all, or by --model / --locale / --error-code).",
    "promote": "Start the full run of a finished canary without redoing its units.",
    "revert": "Undo what a run wrote (targets edited since are kept and reported).",
}
EXIT_BAD_ARGUMENTS = 2
EXIT_TIMEOUT = 5


def csv_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


class Command(BaseCommand):
    help = "Machine-translate pages, snippets and settings into many locales in the background."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True, parser_class=CommandParser)
        start = sub.add_parser("start", help="Start a run.", called_from_command_line=True)
        self.add_start_arguments(start)
        status = sub.add_parser("status", help="Show a run.", called_from_command_line=True)
        status.add_argument("run_id", nargs="?", type=int, help="Run id (default: latest).")
        status.add_argument("--json", action="store_true", help="Print the run as JSON.")
        for name, text in CONTROL_HELP.items():
            control = sub.add_parser(name, help=text, called_from_command_line=True)
            control.add_argument("run_id", type=int, help="Run id.")
            if name == "retry":
                control.add_argument("--model", action="append", default=[], metavar="APP.MODEL")
                control.add_argument("--locale", action="append", default=[], metavar="CODE")
                control.add_argument("--error-code", action="append", default=[], metavar="CODE")
            if name in ("retry", "revert", "promote", "resume"):
                control.add_argument("--wait", action="store_true", help="Wait and show progress.")
                control.add_argument("--timeout", type=float, help="Give up after N seconds.")
                control.add_argument("--json", action="store_true", help="Final summary as JSON.")

    def add_start_arguments(self, parser: CommandParser) -> None:
        what = parser.add_argument_group("scope")
        what.add_argument(
            "--all",
            action="store_true",
            help="Every page tree, translatable snippet and setting of the source.",
        )
        what.add_argument(
            "--subtree",
            action="append",
            type=int,
            default=[],
            metavar="PAGE_ID",
            help="A page and its descendants (repeatable).",
        )
        what.add_argument(
            "--page",
            action="append",
            type=int,
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
        what.add_argument(
            "--settings",
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
        how.add_argument("--mode", default=Mode.CHANGED, choices=Mode.values)
        how.add_argument("--publish", default=PublishPolicy.DRAFT, choices=PublishPolicy.values)
        how.add_argument(
            "--content",
            default=ContentSource.LIVE,
            choices=ContentSource.values,
            help="Translate the live content or the latest draft.",
        )
        how.add_argument("--canary", type=int, metavar="N", help="Translate a sample of N units.")
        how.add_argument(
            "--estimate",
            action="store_true",
            help="Only show what the run would translate and cost (nothing is started).",
        )
        wait = parser.add_argument_group("waiting")
        wait.add_argument("--wait", action="store_true", help="Wait and show progress.")
        wait.add_argument("--timeout", type=float, help="Give up waiting after N seconds.")
        wait.add_argument("--json", action="store_true", help="Print the final summary as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["action"] == "status":
                self.handle_status(options)
            elif options["action"] == "start":
                self.handle_start(options)
            else:
                self.handle_control(options)
        except BulkTranslateError as err:
            raise CommandError(str(err), returncode=EXIT_BAD_ARGUMENTS) from err

    # --- status ------------------------------------------------------------------------------

    def handle_status(self, options: dict[str, Any]) -> None:
        run = self.get_run(options.get("run_id"))
        summary = api.run_summary(run)
        if options["json"]:
            self.stdout.write(json.dumps(summary, indent=2))
        else:
            self.stdout.write(format_summary(summary))

    def get_run(self, run_id: int | None) -> Run:
        runs = Run.objects.all()
        run = runs.first() if run_id is None else runs.filter(pk=run_id).first()
        if run is None:
            message = (
                "There are no runs yet." if run_id is None else f"Run {run_id} does not exist."
            )
            raise CommandError(message, returncode=EXIT_BAD_ARGUMENTS)
        return run

    # --- controls ----------------------------------------------------------------------------

    def handle_control(self, options: dict[str, Any]) -> None:
        action = options["action"]
        run = self.get_run(options["run_id"])
        if action == "cancel":
            cancelled = api.cancel_run(run.pk)
            self.stdout.write(f"Cancelled {run}: {cancelled} pending unit(s) will not run.")
        elif action == "pause":
            if not api.pause_run(run.pk):
                raise CommandError(f"{run} is not running.", returncode=EXIT_BAD_ARGUMENTS)
            self.stdout.write(f"Paused {run}; units in flight finish.")
        elif action == "resume":
            if not api.resume_run(run.pk):
                raise CommandError(f"{run} is not paused.", returncode=EXIT_BAD_ARGUMENTS)
            self.stdout.write(f"Resumed {run}.")
        elif action == "retry":
            queued = api.retry_failed(
                run.pk,
                models=options["model"],
                locales=options["locale"],
                error_codes=options["error_code"],
            )
            self.stdout.write(f"Queued {queued} failed unit(s) of {run} again.")
        elif action == "promote":
            run = api.promote_canary(run.pk)
            self.stdout.write(f"Started {run}, the full run of the canary.")
        elif action == "revert":
            api.start_revert(run.pk)
            self.stdout.write(f"Reverting {run} in the background.")
            if options["wait"]:
                self.wait_for_revert(run, options["timeout"])
            return
        if options.get("wait"):
            self.wait_for(run, options["timeout"], as_json=options["json"])

    def wait_for_revert(self, run: Run, timeout: float | None) -> None:
        deadline = time.monotonic() + timeout if timeout is not None else None
        while True:
            run.refresh_from_db()
            summary = api.revert_summary(run)
            if run.status == RunStatus.REVERTED:
                break
            if deadline is not None and time.monotonic() > deadline:
                self.stderr.write("Still reverting; stopped waiting (--timeout).")
                sys.exit(EXIT_TIMEOUT)
            time.sleep(0.5)
        self.stdout.write(f"{run}: {summary.reverted} unit(s) reverted, {summary.refused} refused.")
        for unit in run.units.exclude(revert_refused="").select_related("target_locale")[:20]:
            self.stdout.write(f"  refused {unit}: {unit.revert_refused}")

    # --- start -------------------------------------------------------------------------------

    def handle_start(self, options: dict[str, Any]) -> None:
        source = api.resolve_locale(options["source"]) if options["source"] else None
        if source is None:
            from wagtail.models import Locale

            source = Locale.get_default()
        if options["estimate"]:
            self.print_estimate(options, source)
            return
        run = api.start_run(
            scope=self.build_scope(options, source),
            source_locale=source,
            target_locales=self.target_codes(options["locales"], source),
            mode=options["mode"],
            publish_policy=options["publish"],
            content_source=options["content"],
            canary_size=options["canary"],
        )
        self.stderr.write(
            f"Started {run} — follow it with: manage.py bulk_translate status {run.pk}"
        )
        if options["wait"]:
            self.wait_for(run, options["timeout"], as_json=options["json"])

    def print_estimate(self, options: dict[str, Any], source: Any) -> None:
        result = api.preflight(
            self.build_scope(options, source),
            source,
            self.target_codes(options["locales"], source),
            mode=options["mode"],
        )
        if options["json"]:
            self.stdout.write(json.dumps(result.as_dict(), indent=2))
            return
        self.stdout.write(format_preflight(result))

    def target_codes(self, value: str, source: Any) -> list[str]:
        from wagtail.models import Locale

        if value.strip().lower() == "all":
            return list(
                Locale.objects.exclude(pk=source.pk).values_list("language_code", flat=True)
            )
        return csv_list(value)

    def build_scope(self, options: dict[str, Any], source: Any) -> api.Scope:
        scope = api.whole_site_scope(source) if options["all"] else api.Scope()
        scope.pages += [{"id": pk, "descendants": True} for pk in options["subtree"]]
        scope.pages += [{"id": pk, "descendants": False} for pk in options["page"]]
        scope.snippets += [m for value in options["snippets"] for m in csv_list(value)]
        scope.settings += [m for value in options["settings"] for m in csv_list(value)]
        scope.exclude_models += [m for value in options["exclude"] for m in csv_list(value)]
        for item in options["object"]:
            label, sep, pk = item.rpartition(":")
            if not sep or not label or not pk:
                raise CommandError(
                    f"--object takes APP.MODEL:PK, got {item!r}.", returncode=EXIT_BAD_ARGUMENTS
                )
            scope.objects.append([label, pk])
        return scope

    # --- waiting -----------------------------------------------------------------------------

    def wait_for(self, run: Run, timeout: float | None, *, as_json: bool) -> None:
        deadline = time.monotonic() + timeout if timeout is not None else None
        last_line = ""
        while True:
            run.refresh_from_db()
            api.keep_janitor_alive()  # re-arm the janitor if its chain died
            counts = run.unit_counts()
            line = progress_line(run, counts)
            if line != last_line:
                self.write_progress(line)
                last_line = line
            if run.is_finished:
                break
            if deadline is not None and time.monotonic() > deadline:
                self.stderr.write("\nStill running; stopped waiting (--timeout).")
                sys.exit(EXIT_TIMEOUT)
            time.sleep(0.5)
        self.stderr.write("")
        summary = api.run_summary(run)
        self.stdout.write(json.dumps(summary, indent=2) if as_json else format_summary(summary))
        code = EXIT_CODES.get(run.status, 1)
        if code:
            sys.exit(code)

    def write_progress(self, line: str) -> None:
        if self.stderr.isatty():
            self.stderr.write("\r" + line, ending="")
        else:
            self.stderr.write(line)
