"""Finding the objects units point at: by model and primary key, pages as their specific type."""

from __future__ import annotations

from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models
from wagtail.models import Page

from .ids import parse_pk


def valid_pk(model: type[models.Model], pk: Any) -> bool:
    """Whether ``pk`` is a primary key value ``model``'s column can hold (not "abc", "²" or
    2**64 for integer keys)."""
    return parse_pk(model, pk) is not None


def find_object(model: type[models.Model], pk: Any) -> models.Model | None:
    """The object with this primary key (a page as its specific type), or None."""
    key = parse_pk(model, pk)
    if key is None:
        return None
    instance = model._default_manager.filter(pk=key).first()
    return instance.specific if isinstance(instance, Page) else instance


def find_by_content_type(content_type_id: int, pk: Any) -> models.Model | None:
    model = ContentType.objects.get_for_id(content_type_id).model_class()
    return find_object(model, pk) if model is not None else None


def objects_by_pk(model: type[models.Model], pks: list[Any]) -> dict[Any, models.Model]:
    """Several objects of one model in one query, invalid primary keys left out."""
    keys = [parse_pk(model, pk) for pk in pks]
    return model._default_manager.in_bulk([key for key in keys if key is not None])
