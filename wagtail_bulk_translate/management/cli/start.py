"""``bulk_translate start``: build the scope from the options, estimate or start the run."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError
from wagtail.models import Locale

from ... import api
from ...models import RunOrigin
from ...scope.readiness import untranslatable_in_scope
from ..reporting import format_preflight
from .acting import acting_user
from .waiting import wait_for

EXIT_BAD_ARGUMENTS = 2


def csv_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def handle_start(command: Any, options: dict[str, Any]) -> None:
    source = api.resolve_locale(options["source"]) if options["source"] else Locale.get_default()
    scope = build_scope(options, source)
    targets = target_codes(options["locales"], source)
    user = acting_user(options)
    if options["estimate"]:
        print_estimate(command, options, scope, source, targets)
        return
    run = api.start_run(
        scope=scope,
        source_locale=source,
        target_locales=targets,
        mode=options["mode"],
        publish_policy=options["publish"],
        content_source=options["content"],
        canary_size=options["canary"],
        user=user,
        origin=RunOrigin.COMMAND,
        translator=translator_choice(options["translator"]),
    )
    human = command.stderr if options["json"] else command.stdout
    human.write(f"Started run #{run.pk}. Follow it with: manage.py bulk_translate status {run.pk}")
    for item in untranslatable_in_scope(scope, source):
        human.write(f"Left out: {item.model} cannot be translated: {item.reason} — {item.fix}")
    if options["wait"]:
        wait_for(command, run, options["timeout"], as_json=options["json"])
    elif options["json"]:
        command.stdout.write(json.dumps(api.run_summary(run), indent=2))


def print_estimate(
    command: Any, options: dict[str, Any], scope: api.Scope, source: Locale, targets: list[str]
) -> None:
    result = api.preflight(
        scope,
        source,
        targets,
        mode=options["mode"],
        content_source=options["content"],
        origin=RunOrigin.COMMAND,
        user=acting_user(options),
        translator=translator_choice(options["translator"]),
    )
    if options["json"]:
        command.stdout.write(json.dumps(result.as_dict(), indent=2))
    else:
        command.stdout.write(format_preflight(result))


def translator_choice(values: list[str]) -> dict[str, str]:
    """{locale code or "*": profile name} from ``--translator PROFILE`` / ``LOCALE=PROFILE``."""
    choice: dict[str, str] = {}
    for value in values:
        locale, sep, name = value.rpartition("=")
        key = locale.strip() if sep else "*"
        if not name.strip() or (sep and not key):
            raise CommandError(
                f"--translator takes PROFILE or LOCALE=PROFILE (e.g. gpt, sw=gpt), got {value!r}.",
                returncode=EXIT_BAD_ARGUMENTS,
            )
        if key in choice and choice[key] != name.strip():
            raise CommandError(
                f"--translator gives {'every locale' if key == '*' else key} two profiles: "
                f"{choice[key]} and {name.strip()}.",
                returncode=EXIT_BAD_ARGUMENTS,
            )
        choice[key] = name.strip()
    return choice


def target_codes(value: str, source: Locale) -> list[str]:
    if value.strip().lower() == "all":
        return list(Locale.objects.exclude(pk=source.pk).values_list("language_code", flat=True))
    return csv_list(value)


def build_scope(options: dict[str, Any], source: Locale) -> api.Scope:
    scope = api.whole_site_scope(source) if options["all"] else api.Scope()
    scope.pages += [{"id": pk, "descendants": True} for pk in options["subtree"]]
    scope.pages += [{"id": pk, "descendants": False} for pk in options["page"]]
    scope.snippets += [m for value in options["snippets"] for m in csv_list(value)]
    scope.settings += [m for value in options["setting_models"] for m in csv_list(value)]
    scope.exclude_models += [m for value in options["exclude"] for m in csv_list(value)]
    for item in options["object"]:
        label, sep, pk = item.rpartition(":")
        if not sep or not label or not pk:
            raise CommandError(
                f"--object takes APP.MODEL:PK (e.g. demo.Category:7), got {item!r}.",
                returncode=EXIT_BAD_ARGUMENTS,
            )
        scope.objects.append([label, pk])
    return scope
