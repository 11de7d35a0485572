"""The audit log entry of a run's start, wherever it was started (admin, command line, code).

Wagtail's site history then lists every run; the admin logs editors' later actions on runs
(admin/log_actions.py).
"""

from __future__ import annotations

from typing import Any

from wagtail.log_actions import log

from ..models import Run

PREFIX = "wagtail_bulk_translate.run"
STARTED = f"{PREFIX}.started"


def started_data(run: Run) -> dict[str, Any]:
    return {
        "mode": run.mode,
        "canary_size": run.canary_size,
        "source": run.source_locale.language_code,
        "targets": sorted(run.target_locales.values_list("language_code", flat=True)),
        "estimated_characters": run.estimated_characters,
    }


def log_run_started(run: Run, user: Any, **data: Any) -> None:
    """``user`` is None for a run started from the command line (the entry says "system")."""
    log(instance=run, action=STARTED, user=user, data={**started_data(run), **data})
