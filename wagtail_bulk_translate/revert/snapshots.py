"""Snapshots of database rows: to notice edits (fingerprints) and to undo writes (revert)."""

from __future__ import annotations

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from modelcluster.models import (
    ClusterableModel,
    get_all_child_relations,
    get_serializable_data_for_fields,
    model_from_serializable_data,
)

# Tree bookkeeping that changes when pages are added nearby, not when the object is edited.
TREE_FIELDS = {"path", "depth", "numchild"}


def row_fingerprint(instance: models.Model) -> str:
    """The object's row as stored now, ready to compare with an earlier fingerprint."""
    model = type(instance)
    fields = [f for f in model._meta.concrete_fields if f.attname != "numchild"]
    row = (
        model._default_manager.filter(pk=instance.pk)
        .values_list(*[f.attname for f in fields])
        .first()
    )
    if row is None:
        return ""
    prepared = [f.get_prep_value(value) for f, value in zip(fields, row, strict=True)]
    return json.dumps(prepared, default=str, sort_keys=True)


def serialize(instance: models.Model) -> dict[str, Any]:
    """The object's content, child relations included, as JSON (like a Wagtail revision)."""
    if isinstance(instance, ClusterableModel):
        data = instance.serializable_data()
    else:
        data = get_serializable_data_for_fields(instance)
    # Dates and decimals as strings, so the snapshot fits a JSONField.
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def restore(instance: models.Model, data: dict[str, Any]) -> models.Model:
    """Put serialized content back on ``instance`` (tree position and identity kept)."""
    model: Any = type(instance)
    if issubclass(model, ClusterableModel):
        saved = model.from_serializable_data(data, check_fks=False, strict_fks=False)
    else:
        saved = model_from_serializable_data(model, data, check_fks=False, strict_fks=False)
    for field in model._meta.concrete_fields:
        if field.primary_key or field.attname in TREE_FIELDS:
            continue
        setattr(instance, field.attname, getattr(saved, field.attname))
    if isinstance(instance, ClusterableModel):
        for relation in get_all_child_relations(model):
            name = relation.get_accessor_name()
            setattr(instance, name, list(getattr(saved, name).all()))
    return instance
