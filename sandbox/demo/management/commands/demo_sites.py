from django.core.management.base import BaseCommand, CommandError, CommandParser

from demo.content import set_sites_port


class Command(BaseCommand):
    help = "Point the demo's sites (localhost and one per locale) at a port: `make serve` runs it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, required=True, help="The port runserver uses.")

    def handle(self, *args, **options) -> None:
        port = options["port"]
        if not 0 < port < 65536:
            raise CommandError(f"--port must be between 1 and 65535, not {port}.")
        changed = set_sites_port(port)
        self.stdout.write(f"Demo sites on port {port} ({changed} changed).")
