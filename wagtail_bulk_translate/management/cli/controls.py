"""``cancel``, ``pause``, ``resume``, ``retry``, ``promote``, ``revert``: act on one run.

With ``--json`` stdout is one JSON document (the run's summary, or the revert's report) and
the sentence saying what was done goes to stderr.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.core.management.base import CommandError

from ... import api
from ...models import Run, RunStatus
from ...scope.readiness import covers_whole_site
from ..reporting import COMMAND, start_command
from .acting import acting_user
from .waiting import EXIT_INTERRUPTED, EXIT_TIMEOUT, POLL_SECONDS, wait_for

EXIT_BAD_ARGUMENTS = 2
NO_RUNS = f"There are no runs yet. Start one with: {COMMAND} start --help"


def refuse(message: str) -> CommandError:
    return CommandError(message, returncode=EXIT_BAD_ARGUMENTS)


def get_run(run_id: int | None) -> Run:
    runs = Run.objects.all()
    run = runs.first() if run_id is None else runs.filter(pk=run_id).first()
    if run is None:
        if run_id is None:
            raise refuse(NO_RUNS)
        raise refuse(f"Run {run_id} does not exist. See the recent runs with: {COMMAND} list")
    return run


def same_scope_command(run: Run) -> str:
    whole_site = covers_whole_site(api.Scope.from_json(run.scope))
    return start_command(run, whole_site=whole_site)


def handle_control(command: Any, options: dict[str, Any]) -> None:
    action = options["action"]
    run = get_run(options["run_id"])
    human = command.stderr if options["json"] else command.stdout
    if action == "cancel":
        if run.is_finished:
            raise refuse(
                f"Run #{run.pk} already ended ({run.status}): there is nothing to cancel. "
                f"To undo what it wrote: {COMMAND} revert {run.pk}"
            )
        cancelled = api.cancel_run(run.pk)
        human.write(f"Cancelled run #{run.pk}: {cancelled} pending unit(s) will not run.")
    elif action == "pause":
        if not api.pause_run(run.pk):
            raise refuse(f"Run #{run.pk} is {run.status}, not running: there is nothing to pause.")
        human.write(
            f"Paused run #{run.pk}; units in flight finish. Resume: {COMMAND} resume {run.pk}"
        )
    elif action == "resume":
        if not api.resume_run(run.pk):
            raise refuse(f"Run #{run.pk} is {run.status}, not paused: there is nothing to resume.")
        human.write(f"Resumed run #{run.pk}.")
    elif action == "retry":
        retry(run, options, human)
    elif action == "promote":
        run = promote(run, acting_user(options))
        human.write(f"Started run #{run.pk}, the full run of canary #{options['run_id']}.")
    elif action == "revert":
        api.start_revert(run.pk)
        human.write(f"Reverting run #{run.pk} in the background.")
        if options["wait"]:
            wait_for_revert(command, run, options["timeout"], as_json=options["json"])
        elif options["json"]:
            command.stdout.write(json.dumps(revert_report(run), indent=2))
        return
    if options.get("wait"):
        wait_for(command, run, options["timeout"], as_json=options["json"])
    elif options["json"]:
        command.stdout.write(json.dumps(api.run_summary(run), indent=2))


def retry(run: Run, options: dict[str, Any], human: Any) -> None:
    if run.status in (RunStatus.CANCELLED, RunStatus.REVERTED):
        raise refuse(
            f"A {run.status} run cannot be retried — start a new run with the same scope: "
            f"{same_scope_command(run)}"
        )
    queued = api.retry_failed(
        run.pk,
        models=options["model"],
        locales=options["locale"],
        error_codes=options["error_code"],
        user=acting_user(options),
    )
    if queued:
        human.write(f"Queued {queued} failed unit(s) of run #{run.pk} again.")
    else:
        human.write(
            f"No failed unit of run #{run.pk} matches: nothing was queued. "
            f"See its units with: {COMMAND} units {run.pk} --status failed"
        )


def promote(canary: Run, user: Any = None) -> Run:
    if not canary.is_canary:
        raise refuse(
            f"Run #{canary.pk} is not a canary: only a canary (start … --canary N) is promoted."
        )
    if not canary.is_finished:
        raise refuse(
            f"Canary #{canary.pk} is still {canary.status}: wait for it "
            f"({COMMAND} status {canary.pk} --wait), then promote it."
        )
    return api.promote_canary(canary.pk, user=user)


def follow_revert(run: Run, timeout: float | None) -> int:
    deadline = time.monotonic() + timeout if timeout is not None else None
    while True:
        run.refresh_from_db()
        if run.status == RunStatus.REVERTED:
            return 0
        if deadline is not None and time.monotonic() >= deadline:
            return EXIT_TIMEOUT
        time.sleep(POLL_SECONDS)


def revert_report(run: Run) -> dict[str, Any]:
    run.refresh_from_db()
    summary = api.revert_summary(run)
    refused = run.units.exclude(revert_refused="").select_related("target_locale")
    return {
        "id": run.pk,
        "status": run.status,
        "reverted": summary.reverted,
        "refused": summary.refused,
        "remaining": summary.remaining,
        "refused_units": [
            {"unit": unit.pk, "locale": unit.target_locale.language_code, "reason": reason}
            for unit, reason in ((u, u.revert_refused) for u in refused[:100])
        ],
    }


def wait_for_revert(command: Any, run: Run, timeout: float | None, *, as_json: bool) -> None:
    """Follow a revert until it ends; with ``--json`` its report is printed however the
    waiting ends (``--timeout``, Ctrl-C included)."""
    try:
        code = follow_revert(run, timeout)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    if code:
        command.stderr.write(f"Run #{run.pk} is still reverting; stopped waiting. It goes on.")
    report = revert_report(run)
    if as_json:
        command.stdout.write(json.dumps(report, indent=2))
    if code:
        sys.exit(code)
    if as_json:
        return
    command.stdout.write(
        f"Run #{run.pk}: {report['reverted']} unit(s) reverted, {report['refused']} refused."
    )
    for item in report["refused_units"][:20]:
        command.stdout.write(f"  refused unit {item['unit']} ({item['locale']}): {item['reason']}")
