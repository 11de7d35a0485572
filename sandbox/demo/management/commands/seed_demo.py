from django.core.management.base import BaseCommand, CommandError, CommandParser

from demo.content import ensure_admin_user, ensure_editor_user, seed_demo_content


class Command(BaseCommand):
    help = (
        "Create the demo site's content (once), the admin / changeme superuser and the "
        "editor / changeme user (a Translators group that manages runs)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pages", type=int, default=300, help="Roughly how many pages.")

    def handle(self, *args, **options) -> None:
        if options["pages"] < 10:
            raise CommandError("--pages must be at least 10.")
        result = seed_demo_content(pages=options["pages"])
        ensure_admin_user()
        ensure_editor_user()
        verb = "Created" if result.created else "Kept the existing"
        self.stdout.write(f"{verb} demo site: {result.pages} pages in English.")
