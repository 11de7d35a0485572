"""``manage.py bulk_translate_janitor``: one janitor sweep, for those who prefer cron.

The janitor also runs by itself as a self-re-queuing task while a run is active
(``JANITOR_INTERVAL_SECONDS``); running this from cron as well is harmless.
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from wagtail_bulk_translate import api
from wagtail_bulk_translate.management.terminal import protect_output


class Command(BaseCommand):
    help = "Return expired units to work, restart stalled runs, finish completed runs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--loop",
            type=float,
            metavar="SECONDS",
            help="Keep sweeping every SECONDS instead of once.",
        )
        parser.add_argument("--json", action="store_true", help="Print each report as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        protect_output(self)
        interval = options["loop"]
        if interval is not None and interval <= 0:
            raise CommandError("--loop takes a number of seconds greater than 0.")
        while True:
            report = api.janitor_sweep().as_dict()
            if options["json"]:
                self.stdout.write(json.dumps(report))
            else:
                done = ", ".join(f"{name.replace('_', ' ')}: {n}" for name, n in report.items())
                self.stdout.write(f"Janitor sweep — {done}")
            if interval is None:
                return
            time.sleep(interval)
