"""``status``, ``list`` and ``units``: what runs there are and what became of their objects."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.contenttypes.models import ContentType
from wagtail.admin.admin_url_finder import AdminURLFinder

from ... import api
from ...errors import ScopeError
from ...models import Run, Unit
from ...objects import find_by_content_type
from ...runs.liveness import seconds_without_worker, task_failure_note
from ...runs.summary import outcome_counts
from ...scope.definition import model_label, resolve_model
from ..reporting import format_run_line, format_summary, format_unit_line
from .controls import NO_RUNS, get_run, refuse
from .waiting import no_worker_message, wait_for


def handle_status(command: Any, options: dict[str, Any]) -> None:
    if options.get("run_id") is None and not Run.objects.exists():
        say_no_runs(command, as_json=options["json"], empty="null")
        return
    run = get_run(options.get("run_id"))
    if options.get("wait"):
        wait_for(command, run, options["timeout"], as_json=options["json"])
        return
    summary = {**api.run_summary(run), **api.run_details(run)}
    if options["json"]:
        command.stdout.write(json.dumps(summary, indent=2))
        return
    command.stdout.write(format_summary(summary))
    waited = seconds_without_worker(run)
    if waited is not None:
        command.stdout.write(no_worker_message(run, waited))
    if failing := task_failure_note(run):
        command.stdout.write(failing)


def handle_list(command: Any, options: dict[str, Any]) -> None:
    runs = Run.objects.select_related("source_locale").prefetch_related("target_locales")
    rows = [run_row(run) for run in runs.order_by("-pk")[: options["limit"]]]
    if not rows:
        say_no_runs(command, as_json=options["json"], empty="[]")
    elif options["json"]:
        command.stdout.write(json.dumps(rows, indent=2))
    else:
        command.stdout.write("\n".join(format_run_line(row) for row in rows))


def say_no_runs(command: Any, *, as_json: bool, empty: str) -> None:
    """No runs yet is an answer, not an error (exit 0): ``status`` and ``list`` say it alike."""
    human = command.stderr if as_json else command.stdout
    human.write(NO_RUNS)
    if as_json:
        command.stdout.write(empty)


def run_row(run: Run) -> dict[str, Any]:
    return {
        "id": run.pk,
        "status": run.status,
        "mode": run.mode,
        "canary": run.is_canary,
        "publish_policy": run.publish_policy,
        "source_locale": run.source_locale.language_code,
        "target_locales": sorted(locale.language_code for locale in run.target_locales.all()),
        "units_total": run.units_total,
        "units": run.unit_counts(),
        "outcomes": outcome_counts(run),
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }


def handle_units(command: Any, options: dict[str, Any]) -> None:
    run = get_run(options["run_id"])
    units = run.units.select_related("target_locale").order_by("position", "pk")
    if options["status"]:
        units = units.filter(status=options["status"])
    if options["locale"]:
        units = units.filter(target_locale=run_locale(run, options["locale"]))
    if options["model"]:
        units = units.filter(content_type=run_model(run, options["model"]))
    finder = AdminURLFinder()
    rows = [unit_row(unit, finder) for unit in units[: options["limit"]]]
    if options["json"]:
        command.stdout.write(json.dumps(rows, indent=2))
    elif not rows:
        command.stdout.write(f"No unit of run #{run.pk} matches.")
    else:
        command.stdout.write("\n".join(format_unit_line(row) for row in rows))


def run_locale(run: Run, code: str) -> Any:
    locales = list(run.target_locales.all())
    for locale in locales:
        if locale.language_code.lower() == code.lower():
            return locale
    valid = ", ".join(sorted(locale.language_code for locale in locales))
    raise refuse(f"Run #{run.pk} has no target locale {code!r}: choose one of {valid}.")


def run_model(run: Run, label: str) -> ContentType:
    type_ids = run.units.values_list("content_type_id", flat=True).distinct().order_by()
    types = ContentType.objects.filter(pk__in=type_ids)
    valid = sorted(model_label(ct.model_class() or ContentType) for ct in types)
    try:
        wanted = ContentType.objects.get_for_model(resolve_model(label))
    except ScopeError as err:
        raise refuse(f"{err} Models in run #{run.pk}: {', '.join(valid) or 'none'}.") from err
    if wanted not in types:
        raise refuse(f"Run #{run.pk} has no unit of {label}: choose one of {', '.join(valid)}.")
    return wanted


def unit_row(unit: Unit, finder: AdminURLFinder) -> dict[str, Any]:
    source = find_by_content_type(unit.content_type_id, unit.object_id)
    target = (
        find_by_content_type(unit.content_type_id, unit.target_object_id)
        if unit.target_object_id
        else None
    )
    model = ContentType.objects.get_for_id(unit.content_type_id).model_class()
    return {
        "id": unit.pk,
        "status": unit.status,
        "locale": unit.target_locale.language_code,
        "model": model_label(model) if model else "",
        "object_id": unit.object_id,
        "object": str(source) if source is not None else "",
        "target_object_id": unit.target_object_id or None,
        "error_code": unit.error_code,
        "error_message": unit.error_message,
        "note": unit.note,
        "attempts": unit.attempts,
        "edit_url": finder.get_edit_url(target) if target is not None else None,
    }
