"""Table columns of the runs listing (values come from the listing's annotations), and its
table, whose active rows follow their runs live (the run page's status poller, per row)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.urls import reverse
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from wagtail.admin.ui.tables import Column, StatusTagColumn, Table, UserColumn

from ..models import Run, RunStatus
from ..runs.spend import annotated_spend_text
from ..translators.profiles import DEFAULT_PROFILE, configured_profiles
from .progress import Progress

if TYPE_CHECKING:
    from .progress import AnnotatedRun

TEMPLATES = "wagtail_bulk_translate/tables"


def run_title(run: Run) -> str:
    if run.promoted_from_id:
        return _("Full run #%(pk)d (from canary #%(canary)d)") % {
            "pk": run.pk,
            "canary": run.promoted_from_id,
        }
    kind = _("Canary #%(pk)d") if run.is_canary else _("Run #%(pk)d")
    return kind % {"pk": run.pk}


def spend_summary(run: AnnotatedRun) -> str:
    """What a run cost, in one cell: tokens and money for a language model, else characters
    billed; "—" when nothing was billed (the pseudo translator, a run of skipped units)."""
    tokens = annotated_spend_text(run)
    if tokens:
        return tokens
    if run.n_characters:
        return ngettext("%(n)s character", "%(n)s characters", run.n_characters) % {
            "n": f"{run.n_characters:,}"
        }
    return "—"


def translators_summary(run: Run) -> str:
    """The run's translator profiles with their locales ("DeepL Pro: de, fr · GPT: sw"), read
    from the run's pins (no query); a run of one profile shows its name alone."""
    labels = {name: profile.label for name, profile in configured_profiles().items()}
    codes = {str(locale.pk): locale.language_code for locale in run.target_locales.all()}
    by_profile: dict[str, list[str]] = {}
    for locale_id, pin in (run.locale_translators or {}).items():
        by_profile.setdefault(pin.get("profile", ""), []).append(codes.get(locale_id, "?"))
    if len(by_profile) < 2:
        name = next(iter(by_profile), DEFAULT_PROFILE)
        if name == DEFAULT_PROFILE:  # the single TRANSLATOR: named by its class
            return run.translator_class.rsplit(".", 1)[-1]
        return labels.get(name, name)
    return " · ".join(
        f"{labels.get(name, name)}: {', '.join(sorted(locales))}"
        for name, locales in by_profile.items()
    )


class RunStatusColumn(StatusTagColumn):
    """Status tag; active runs are highlighted, and the cell carries the raw status."""

    cell_template_name = f"{TEMPLATES}/status_cell.html"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            "get_status_display",
            label=gettext_lazy("Status"),
            sort_key="status",
            primary=lambda run: run.status in RunStatus.active,
            **kwargs,
        )


def canary_label(run: Run) -> str:
    """ "canary of 20" for a canary, nothing for a full run (not a red cross: not an error)."""
    if not run.is_canary:
        return ""
    return _("canary of %(n)d") % {"n": run.canary_size}


class StartedByColumn(UserColumn):
    """Who started the run; a run started by the command line says so."""

    cell_template_name = f"{TEMPLATES}/user_cell.html"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            "created_by",
            label=gettext_lazy("Started by"),
            blank_display_name=gettext_lazy("Command line"),
            **kwargs,
        )


class RunTable(Table):
    """The runs table: each active run's row polls its status endpoint (``bt-run-status``) and
    updates its status, progress and counts in place; the listing itself is not re-queried."""

    def get_row_attrs(self, instance: Run) -> dict[str, Any]:
        attrs = super().get_row_attrs(instance)
        if instance.status in RunStatus.active or instance.is_reverting:
            attrs.update(live_status_attrs(instance))
        return attrs


def live_status_attrs(run: Run) -> dict[str, str]:
    """Attributes that make an element follow ``run`` through the ``bt-run-status`` poller."""
    return {
        "data-controller": "bt-run-status",
        "data-bt-run-status-url-value": reverse("wagtail_bulk_translate:status", args=[run.pk]),
        "data-bt-run": str(run.pk),
    }


class ProgressValueColumn(Column):
    """A column showing a run's Progress (built from the listing's annotations)."""

    def get_value(self, instance: AnnotatedRun) -> Progress:
        return Progress.from_annotated(instance)


class ProgressColumn(ProgressValueColumn):
    cell_template_name = f"{TEMPLATES}/progress_cell.html"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("progress", label=gettext_lazy("Progress"), **kwargs)


class UnitCountsColumn(ProgressValueColumn):
    cell_template_name = f"{TEMPLATES}/unit_counts_cell.html"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("unit_counts", label=gettext_lazy("Units"), **kwargs)


def scope_summary(run: Run) -> str:
    """ "2 page trees and 1 snippet type: en → de, fr" from the scope JSON and prefetched
    target locales (no query of its own)."""
    scope = run.scope or {}
    pages = scope.get("pages", [])
    trees = sum(1 for root in pages if root.get("descendants", True))
    counts = [
        (trees, ngettext("%(n)d page tree", "%(n)d page trees", trees)),
        (len(pages) - trees, ngettext("%(n)d page", "%(n)d pages", len(pages) - trees)),
        *(
            (len(scope.get(key, [])), ngettext(one, many, len(scope.get(key, []))))
            for key, one, many in SCOPE_PARTS
        ),
    ]
    parts = [text % {"n": n} for n, text in counts if n] or [_("nothing")]
    targets = sorted(locale.language_code for locale in run.target_locales.all())
    return _("%(what)s: %(source)s → %(targets)s") % {
        "what": get_text_list(parts, _("and")),
        "source": run.source_locale.language_code,
        "targets": ", ".join(targets),
    }


SCOPE_PARTS = [
    ("snippets", "%(n)d snippet type", "%(n)d snippet types"),
    ("settings", "%(n)d settings type", "%(n)d settings types"),
    ("objects", "%(n)d selected object", "%(n)d selected objects"),
]
