"""``manage.py bulk_translate_locales``: create Wagtail locales from WAGTAIL_CONTENT_LANGUAGES.

Neither Wagtail nor wagtail-localize has a command for this (the admin's "Add locale" form is
the only way), so setting up a multilingual site could not be scripted. Idempotent: a locale
that exists is left alone, so it can run on every deploy after ``migrate``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser
from wagtail.coreutils import get_content_languages
from wagtail.models import Locale

from wagtail_bulk_translate.management.terminal import protect_output


class Command(BaseCommand):
    help = (
        "Create a Wagtail locale for each language of WAGTAIL_CONTENT_LANGUAGES (or the codes "
        "given) that has none yet. Existing locales are left alone."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "codes",
            nargs="*",
            metavar="CODE",
            help="Only these language codes (default: every content language).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        protect_output(self)
        languages = content_languages()
        codes = options["codes"] or list(languages)
        unknown = [code for code in codes if code not in languages]
        if unknown:
            raise CommandError(
                f"Not in WAGTAIL_CONTENT_LANGUAGES: {', '.join(unknown)}. "
                f"Content languages: {', '.join(languages)}. Add a language to both "
                "LANGUAGES and WAGTAIL_CONTENT_LANGUAGES before creating its locale."
            )
        for code in codes:
            # all_objects: a locale whose language was removed from the settings still exists
            # (Wagtail hides it), and creating it again would break its unique code.
            _, created = Locale.all_objects.get_or_create(language_code=code)
            verb = "Created locale" if created else "Locale exists:"
            self.stdout.write(f"{verb} {code} ({languages[code]})")
        if len(languages) < 2:
            self.stdout.write(
                self.style.WARNING(
                    "Only one content language: there is nothing to translate into. List the "
                    "site's languages in LANGUAGES and WAGTAIL_CONTENT_LANGUAGES."
                )
            )


def content_languages() -> dict[str, str]:
    """The content languages by code, or a CommandError that says which setting to fix."""
    if not getattr(settings, "WAGTAIL_I18N_ENABLED", False):
        raise CommandError(
            "WAGTAIL_I18N_ENABLED is not True: Wagtail has a single locale. Set "
            "WAGTAIL_I18N_ENABLED = True and list the languages in LANGUAGES and "
            "WAGTAIL_CONTENT_LANGUAGES."
        )
    try:
        return get_content_languages()
    except ImproperlyConfigured as err:
        raise CommandError(str(err)) from err
