"""Side panels in wagtail-localize's translation editor.

A page that is the target of a synced translation opens in wagtail-localize's own editor (its
``before_edit_page`` hook), not Wagtail's page editor, and that view builds its side panels
inline, with no hook (wagtail-localize 1.x). Its module-level ``render`` is wrapped once, so a
panel given by ``add_panel(request, instance)`` joins the side panels it renders. The snippet
variant of that editor renders no side panels at all: nothing to join there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wagtail.admin.ui.components import MediaContainer
from wagtail_localize.views import edit_translation

TEMPLATE = "wagtail_localize/admin/edit_translation.html"
INSTALLED_MARK = "_wagtail_bulk_translate_panel"

PanelFactory = Callable[[Any, Any], Any]


def install(add_panel: PanelFactory) -> None:
    """Wrap the translation editor's ``render`` (idempotent)."""
    current = edit_translation.render
    if getattr(current, INSTALLED_MARK, False):
        return

    def render(request: Any, template_name: str, context: Any = None, *args: Any, **kw: Any) -> Any:
        if template_name == TEMPLATE and context and isinstance(context.get("side_panels"), list):
            panel = add_panel(request, context.get("instance"))
            if panel is not None:
                panels = MediaContainer([*context["side_panels"], panel])
                context["side_panels"] = panels
                context["media"] = panels.media
        return current(request, template_name, context, *args, **kw)

    setattr(render, INSTALLED_MARK, True)
    edit_translation.render = render
