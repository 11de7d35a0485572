"""``manage.py bulk_translate``: start runs, report on them, and control them.

Exit codes follow one rule: the code says what became of the request. 0: done (a run started,
a report printed, even an empty one such as "no runs yet", a run that succeeded); 2: refused,
nothing done (a bad argument, an unknown run, a control the run's state does not allow, a run
with nothing to translate); with ``--wait``, the run's end: 1 failed, 3 partially succeeded,
4 cancelled; 5 still going when --timeout expired; 130 stopped waiting with Ctrl-C (the run
goes on). With ``--json`` stdout is one JSON document whatever the code (``{"error": …}``
when refused). The subcommands live in ``management/cli/``.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from wagtail_bulk_translate.errors import BulkTranslateError
from wagtail_bulk_translate.management.cli.arguments import add_subcommands
from wagtail_bulk_translate.management.cli.budgets import handle_budgets
from wagtail_bulk_translate.management.cli.controls import handle_control
from wagtail_bulk_translate.management.cli.reports import handle_list, handle_status, handle_units
from wagtail_bulk_translate.management.cli.review import handle_review
from wagtail_bulk_translate.management.cli.start import handle_start
from wagtail_bulk_translate.management.cli.sync import handle_sync
from wagtail_bulk_translate.management.terminal import protect_output, terminal_text

EXIT_BAD_ARGUMENTS = 2
HANDLERS = {
    "start": handle_start,
    "status": handle_status,
    "list": handle_list,
    "units": handle_units,
    "review": handle_review,
    "sync": handle_sync,
    "budgets": handle_budgets,
}


class Command(BaseCommand):
    help = (
        "Machine-translate pages, snippets and settings into many locales in the background. "
        "`manage.py bulk_translate SUBCOMMAND --help` describes each subcommand."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_subcommands(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        protect_output(self)
        handler = HANDLERS.get(options["action"], handle_control)
        try:
            handler(self, options)
        except (BulkTranslateError, CommandError) as err:
            code = getattr(err, "returncode", EXIT_BAD_ARGUMENTS)
            if options.get("json"):  # stdout stays one JSON document, refusals included
                self.stdout.write(json.dumps({"error": str(err), "exit_code": code}, indent=2))
            raise CommandError(terminal_text(str(err)), returncode=code) from err
