"""``manage.py demo``: the whole product end to end on the embedded defaults.

Migrates, seeds the demo site, starts real ``db_worker`` processes (started again if they
exit), runs a canary sample and then the full run (publishing what is live in the source),
printing progress and a summary.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from wagtail.models import Locale

from demo.content import LOCALES, ensure_admin_user, ensure_editor_user, seed_demo_content
from demo.supervisor import Supervisor
from wagtail_bulk_translate.api import (
    format_summary,
    progress_line,
    run_summary,
    start_run,
    whole_site_scope,
)
from wagtail_bulk_translate.models import PublishPolicy, Run, RunStatus

MANAGE_PY = Path(settings.SANDBOX_DIR) / "manage.py"


class Command(BaseCommand):
    help = "Migrate, seed and machine-translate the demo site with real task workers."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pages", type=int, default=300)
        parser.add_argument("--workers", type=int, default=2, help="db_worker processes.")
        parser.add_argument("--canary", type=int, default=12, help="Canary size (0: none).")
        parser.add_argument("--timeout", type=float, default=1800, help="Seconds per run.")

    def handle(self, *args, **options) -> None:
        if options["workers"] < 1:
            raise CommandError("--workers must be at least 1.")
        self.stdout.write("Migrating…")
        call_command("migrate", verbosity=0)
        started = time.monotonic()
        seeded = seed_demo_content(pages=options["pages"])
        ensure_admin_user()
        ensure_editor_user()
        self.stdout.write(
            f"Demo site: {seeded.pages} pages in English"
            f"{'' if seeded.created else ' (already there)'} "
            f"({time.monotonic() - started:.1f} s)."
        )
        workers = self.start_workers(options["workers"])
        try:
            runs = self.translate(options["canary"], options["timeout"])
        finally:
            workers.stop()
        full = runs[-1]
        if full.status != RunStatus.SUCCEEDED:
            raise CommandError(f"The demo run ended {full.status}; see the summary above.")
        self.stdout.write(
            "\nDone. `make serve` (or `make serve PORT=8001`), then http://localhost:8000/fr/ "
            "and the admin at http://localhost:8000/admin/ (admin / changeme, or the editor: "
            "editor / changeme)."
        )

    def translate(self, canary_size: int, timeout: float) -> list[Run]:
        source = Locale.objects.get(language_code=LOCALES[0])
        targets = list(LOCALES[1:])
        runs = []
        if canary_size:
            self.stdout.write(f"\nCanary: {canary_size} units, saved as drafts for review")
            canary = start_run(
                scope=whole_site_scope(source),
                source_locale=source,
                target_locales=targets,
                canary_size=canary_size,
            )
            runs.append(self.follow(canary, timeout))
        self.stdout.write(f"\nFull run: every page, snippet and setting into {', '.join(targets)}")
        full = start_run(
            scope=whole_site_scope(source),
            source_locale=source,
            target_locales=targets,
            publish_policy=PublishPolicy.MIRROR,
        )
        runs.append(self.follow(full, timeout))
        return runs

    def follow(self, run: Run, timeout: float) -> Run:
        deadline = time.monotonic() + timeout
        last = ""
        while True:
            run.refresh_from_db()
            line = progress_line(run, run.unit_counts())
            if line != last:
                self.stdout.write(f"  {line}")
                last = line
            if run.is_finished:
                break
            if time.monotonic() > deadline:
                raise CommandError(f"Run #{run.pk} still {run.status} after {timeout:.0f} s.")
            time.sleep(1)
        summary = run_summary(run)
        self.stdout.write(format_summary(summary))
        for code, counts in summary["units_by_locale"].items():
            per_status = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
            self.stdout.write(f"    {code}: {per_status}")
        return run

    def start_workers(self, count: int) -> Supervisor:
        """COUNT workers for translations, and one for Wagtail's own tasks, each started again
        when it exits (a database restart ends a ``db_worker``).

        One worker only for Wagtail's search-index updates: two running the update of one page
        at once race on the index's unique row (an IntegrityError traceback in their log).
        """
        self.stdout.write(f"Starting {count} db_worker process(es) for translations…")
        queues = [*(["bulk_translate"] * count), "default"]
        return Supervisor(
            [self.worker_command(queue, f"demo-{n}") for n, queue in enumerate(queues)]
        ).start()

    def worker_command(self, queue: str, worker_id: str) -> list[str]:
        command = [sys.executable, str(MANAGE_PY), "db_worker", "--queue-name", queue]
        options = ["--interval", "0.2", "--no-startup-delay", "--no-reload", "--verbosity", "0"]
        return [*command, *options, "--worker-id", worker_id]
