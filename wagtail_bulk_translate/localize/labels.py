"""Readable labels of translatable fields: ``body.section.heading`` → "Body > Section > Heading".

wagtail-localize names where a string sits by a field path: a model field, then, in a
StreamField, the block names down to the text (``item`` for a list's items), or, in an inline
child relation, the child model's field. Editors know those places by the labels the edit
form shows: the field's verbose name, the block's label, the inline panel's label. Labels are
read from the model's definitions only (no database), and cached per model and path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils.text import capfirst
from wagtail import blocks
from wagtail.fields import StreamField

SEPARATOR = " > "
PANEL_ATTRIBUTES = ("content_panels", "promote_panels", "settings_panels", "panels")
# Paths saved before wagtail-localize 1.0 hold block ids instead of block names.
BLOCK_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@lru_cache(maxsize=1024)
def field_label(model: type[models.Model], path: str) -> str:
    """The label of the field at ``path`` (a wagtail-localize field path) of ``model``.

    Parts that no definition names any more (a removed block, an old block id) read as their
    humanised names, so a label is always returned.
    """
    return SEPARATOR.join(model_labels(model, [part for part in path.split(".") if part]))


def model_labels(model: type[models.Model], parts: list[str]) -> list[str]:
    if not parts:
        return []
    name, rest = parts[0], parts[1:]
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return [humanise(name), *humanise_all(rest)]
    if isinstance(field, StreamField):
        return [verbose_name(field, name), *block_labels(field.stream_block, rest)]
    if field.one_to_many and field.related_model is not None:
        child = field.related_model
        label = inline_panel_label(model, name) or child._meta.verbose_name_plural
        return [str(capfirst(label)), *model_labels(child, rest)]
    return [verbose_name(field, name), *humanise_all(rest)]


def block_labels(block: blocks.Block, parts: list[str]) -> list[str]:
    if not parts:
        return []
    name, rest = parts[0], parts[1:]
    if isinstance(block, blocks.ListBlock):
        # A list's items are named "item": the list's own label already says where they are.
        return block_labels(block.child_block, rest if name == "item" else parts)
    child = getattr(block, "child_blocks", {}).get(name)
    if child is None:
        return [*([] if BLOCK_ID.match(name) else [humanise(name)]), *humanise_all(rest)]
    return [str(child.label or humanise(name)), *block_labels(child, rest)]


def inline_panel_label(model: type[models.Model], relation_name: str) -> str | None:
    """The label an InlinePanel of ``model`` gives this child relation, if any."""
    for panel in panels_of(model):
        if getattr(panel, "relation_name", None) == relation_name and panel.label:
            return str(panel.label)
    return None


def panels_of(model: type[models.Model]) -> Iterable[Any]:
    stack = [panel for attr in PANEL_ATTRIBUTES for panel in getattr(model, attr, None) or []]
    while stack:
        panel = stack.pop(0)
        yield panel
        stack.extend(getattr(panel, "children", None) or [])


def verbose_name(field: Any, name: str) -> str:
    return str(capfirst(getattr(field, "verbose_name", None) or humanise(name)))


def humanise(name: str) -> str:
    return str(capfirst(name.replace("_", " ")))


def humanise_all(parts: list[str]) -> list[str]:
    return [humanise(part) for part in parts if not BLOCK_ID.match(part)]
