"""Where each text sent comes from, for translators that read documents (``reads_context``).

Built from what the claim already loaded (the source instance and its strings in document
order): no query. A text needed by several objects carries the context of the first one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import models

from ..localize.labels import field_label
from ..localize.segments import SourceString
from ..scope.definition import model_label
from ..translators.base import TextContext
from .work import ObjectWork, UnitWork


@dataclass(frozen=True)
class ObjectDescription:
    key: str
    type: str
    title: str
    url: str


def text_contexts(works: list[UnitWork], texts: list[str]) -> dict[str, TextContext]:
    """{text: its context} for the ``texts`` these units need."""
    wanted = set(texts)
    contexts: dict[str, TextContext] = {}
    for obj in objects_of(works):
        about = describe(obj.instance)
        for position, string in enumerate(obj.strings):
            if string.data in wanted and string.data not in contexts:
                contexts[string.data] = text_context(obj.instance, string, position, about)
    return contexts


def text_context(
    instance: Any, string: SourceString, position: int, about: ObjectDescription | None = None
) -> TextContext:
    """The context of ``string``, the ``position``-th of ``instance``."""
    about = about or describe(instance)
    model: type[models.Model] = type(instance)
    return TextContext(
        object_key=about.key,
        object_type=about.type,
        object_title=about.title,
        object_url=about.url,
        field=field_label(model, string.field_path or string.path),
        position=position,
    )


def objects_of(works: list[UnitWork]) -> list[ObjectWork]:
    """The claim's objects behind these units, once each, in claim order."""
    found: dict[int, ObjectWork] = {}
    for work in works:
        if work.source is not None:
            found.setdefault(id(work.source), work.source)
    return list(found.values())


def describe(instance: Any) -> ObjectDescription:
    meta = type(instance)._meta
    return ObjectDescription(
        key=f"{model_label(type(instance)).lower()}:{instance.pk}",
        type=str(meta.verbose_name),
        title=object_title(instance),
        url=page_url(instance),
    )


def object_title(instance: Any) -> str:
    title = getattr(instance, "title", None)
    if isinstance(title, str):
        return title
    text = str(instance)
    # Django's default "Model object (12)" says nothing a language model can use.
    return "" if text == f"{type(instance).__name__} object ({instance.pk})" else text


def page_url(instance: Any) -> str:
    """A page's path below its site root ("/blog/post/"), from ``url_path``: no query."""
    url_path = getattr(instance, "url_path", None)
    if not isinstance(url_path, str) or not url_path.startswith("/"):
        return ""
    parts = url_path.strip("/").split("/")
    return "/" + "".join(f"{part}/" for part in parts[1:])
