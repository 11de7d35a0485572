"""The "Translations" side panel of the page and snippet editors.

On a source: each target locale's state (api.source_states), a link to edit the target, and
"Translate now" where the user may translate into that locale. On a run's target: which run
wrote it, from which source revision, and whether the source has changed since.

Wagtail has no hook for the editor's side panels (7.x to 8.0: each edit view builds its list in
``get_side_panels``), so at start-up that method of the page and snippet edit views is wrapped
once (``install``): site owners change neither their models' panels nor their viewsets, and
edit views that subclass Wagtail's get the panel too. A target of a synced translation opens in
wagtail-localize's translation editor instead: localize.editor_panels adds it there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from wagtail.admin.admin_url_finder import AdminURLFinder
from wagtail.admin.ui.side_panels import BaseSidePanel
from wagtail.admin.views.pages.edit import EditView as PageEditView
from wagtail.models import TranslatableMixin
from wagtail.snippets.views.snippets import EditView as SnippetEditView

from ... import api
from ...localize import editor_panels
from ..permissions import can_edit_object, can_manage_runs
from .links import translate_now_url

INSTALLED_MARK = "_wagtail_bulk_translate_panel"


class TranslationsSidePanel(BaseSidePanel):
    class SidePanelToggle(BaseSidePanel.SidePanelToggle):
        aria_label = _("Toggle translations")
        icon_name = "globe"
        # The counter shows how many locales need work (missing or outdated).
        counter_classname = "w-bg-warning-100"

        def get_context_data(self, parent_context: dict[str, Any]) -> dict[str, Any]:
            context = super().get_context_data(parent_context)
            context["count"] = self.panel.needing_work()
            return context

    name = "bulk_translate_translations"
    title = _("Translations")
    template_name = "wagtail_bulk_translate/translations_panel/side_panel.html"
    order = 150  # after the status panel, before the preview

    def __init__(self, object: Any, request: Any) -> None:
        super().__init__(object, request)
        self._facts: dict[str, Any] | None = None

    def facts(self) -> dict[str, Any]:
        """Read once: the toggle's counter and the panel share them."""
        if self._facts is None:
            origin = api.target_origin(self.object)
            states = api.source_states(self.object) if origin is None else []
            self._facts = {"origin": origin, "states": states}
        return self._facts

    def needing_work(self) -> int:
        return sum(
            state.state in (api.TranslationState.MISSING, api.TranslationState.OUTDATED)
            for state in self.facts()["states"]
        )

    def get_context_data(self, parent_context: dict[str, Any]) -> dict[str, Any]:
        context = super().get_context_data(parent_context)
        facts = self.facts()
        finder = AdminURLFinder(self.request.user)
        context["rows"] = [self.row(state, finder) for state in facts["states"]]
        context["origin"] = self.origin_context(facts["origin"], finder)
        return context

    def row(self, state: api.LocaleState, finder: AdminURLFinder) -> dict[str, Any]:
        may_translate = can_edit_object(self.request.user, state.target or self.object)
        in_progress = state.state == api.TranslationState.IN_PROGRESS
        return {
            "state": state,
            "edit_url": finder.get_edit_url(state.target) if state.target else None,
            "run_url": run_url(
                state.in_flight_run_id or (state.last.run_id if state.last else None)
            ),
            "translate_url": (
                translate_now_url(self.object, state.locale)
                if may_translate and not in_progress
                else None
            ),
        }

    def origin_context(self, origin: Any, finder: AdminURLFinder) -> dict[str, Any] | None:
        if origin is None:
            return None
        source_state = origin.source_state
        return {
            "origin": origin,
            "run_url": run_url(origin.run_id),
            "source_url": finder.get_edit_url(origin.source) if origin.source else None,
            "changed_since": bool(source_state and source_state.outdated),
            "source_state": source_state,
        }


def run_url(run_id: int | None) -> str | None:
    return reverse("wagtail_bulk_translate:inspect", args=[run_id]) if run_id else None


def shows_panel(view: Any, instance: Any) -> bool:
    """An existing translatable object, a user who manages runs, a full page (not the editor's
    JSON autosave answers, which re-render no side panel)."""
    return bool(
        getattr(settings, "WAGTAIL_I18N_ENABLED", False)
        and isinstance(instance, TranslatableMixin)
        and instance.pk
        and not getattr(view, "expects_json_response", False)
        and can_manage_runs(view.request.user)
    )


def panel_for(request: Any, instance: Any) -> TranslationsSidePanel | None:
    """The panel for wagtail-localize's translation editor (a target: its origin)."""
    if not isinstance(instance, TranslatableMixin) or not can_manage_runs(request.user):
        return None
    return TranslationsSidePanel(instance, request)


def with_translations_panel(get_side_panels: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def wrapped(view: Any) -> Any:
        panels = get_side_panels(view)
        instance = getattr(view, "page", None) or getattr(view, "object", None)
        if shows_panel(view, instance):
            # After the status panel: the editor sees the object's own state first.
            panels.insert(1, TranslationsSidePanel(instance, view.request))
        return panels

    setattr(wrapped, INSTALLED_MARK, True)
    return wrapped


def install() -> None:
    """Wrap the page and snippet edit views' side panels, and wagtail-localize's translation
    editor's (idempotent)."""
    for view_class in (PageEditView, SnippetEditView):
        current = view_class.get_side_panels
        if not getattr(current, INSTALLED_MARK, False):
            view_class.get_side_panels = with_translations_panel(current)
    editor_panels.install(panel_for)
