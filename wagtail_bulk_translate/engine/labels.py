"""The label of the field or block a string comes from, for people and language models.

A string's path (wagtail-localize's segment path) names the model field first, then, inside a
StreamField, a block id, StructBlock child names and ListBlock item ids in turn; inside an
inline child (a ParentalKey relation), the relation, the child's translation key and the
child's own path. Field labels are cached per model; block ids are looked up in the StreamField's
raw data, which the loaded instance already holds: no query per string.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils.text import capfirst
from wagtail import blocks
from wagtail.fields import StreamField

SEPARATOR = " > "


def string_label(instance: models.Model, path: str) -> str:
    """The labels along ``path`` joined with " > " ("Body > Paragraph"), else the raw path."""
    labels = path_labels(instance, path.split("."))
    return SEPARATOR.join(labels) if labels else path


def path_labels(instance: models.Model | None, parts: list[str]) -> list[str] | None:
    model = type(instance) if instance is not None else None
    return model_path_labels(model, instance, parts) if model is not None else None


def model_path_labels(
    model: type[models.Model], instance: models.Model | None, parts: list[str]
) -> list[str] | None:
    """Labels of a path inside ``model``; ``instance`` (None for inline children, which are
    not loaded) supplies StreamField block types."""
    field = model_field(model, parts[0])
    if field is None:
        return None
    label = field_label(model, parts[0])
    if isinstance(field, StreamField):
        if instance is None:
            return None
        raw = field.value_from_object(instance).raw_data
        inner = block_labels(field.stream_block, list(raw), parts[1:])
        return None if inner is None else [label, *inner]
    if isinstance(field, models.ManyToOneRel) and len(parts) > 2:
        inner = model_path_labels(field.related_model, None, parts[2:])
        return None if inner is None else [label, *inner]
    return [label] if len(parts) == 1 else None


@cache
def model_field(model: type[models.Model], name: str) -> Any:
    try:
        return model._meta.get_field(name)
    except FieldDoesNotExist:
        return None


@cache
def field_label(model: type[models.Model], name: str) -> str:
    field = model_field(model, name)
    if isinstance(field, models.ManyToOneRel):
        return str(capfirst(field.related_model._meta.verbose_name_plural))
    return str(capfirst(getattr(field, "verbose_name", name)))


def block_labels(block: blocks.Block, raw: Any, parts: list[str]) -> list[str] | None:
    """Labels of the blocks along ``parts`` (None when the raw data does not match)."""
    if not parts:
        return []
    if isinstance(block, blocks.StreamBlock):
        found = item_with_id(raw, parts[0]) or {}
        child = block.child_blocks.get(found.get("type", ""))
        if child is None:
            return None
        inner = block_labels(child, found.get("value"), parts[1:])
        return None if inner is None else [block_label(child), *inner]
    if isinstance(block, blocks.ListBlock):
        item = item_with_id(raw, parts[0])
        # A list item has no label of its own: the list's label already says what it is.
        return (
            None if item is None else block_labels(block.child_block, item.get("value"), parts[1:])
        )
    if isinstance(block, blocks.StructBlock):
        child = block.child_blocks.get(parts[0])
        if child is None:
            return None
        value = raw.get(parts[0]) if isinstance(raw, dict) else None
        inner = block_labels(child, value, parts[1:])
        return None if inner is None else [block_label(child), *inner]
    return None


def item_with_id(raw: Any, block_id: str) -> dict[str, Any] | None:
    if isinstance(raw, dict):  # a ListBlock value in its {"value": [...]} form
        raw = raw.get("value")
    for item in raw or []:
        if isinstance(item, dict) and item.get("id") == block_id:
            return item
    return None


def block_label(block: blocks.Block) -> str:
    return str(block.label or capfirst((block.name or "").replace("_", " ")))
