"""Publish the machine-translated drafts of one content type in one locale (the coverage
report's "Publish drafts"): targets that a run translated as drafts and nobody published yet.

Each is published through Wagtail's own revision publish, as the editor who asked, so
Wagtail's audit log records every publication and its publish permissions apply: objects the
editor may not publish are left as drafts and counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import models
from wagtail.models import DraftStateMixin, Locale, Page

from ..models import Unit, UnitStatus
from ..scope.definition import resolve_model

# Published per request: each publication costs dozens of queries.
MAX_PER_REQUEST = 200


@dataclass(frozen=True)
class Published:
    published: int
    not_allowed: int
    left: int  # beyond MAX_PER_REQUEST: publish again


def translated_drafts(label: str, source: Locale, target: Locale) -> models.QuerySet:
    """Never-published targets of ``label`` in ``target`` that a run translated (not reverted)."""
    model = resolve_model(label)
    if not issubclass(model, DraftStateMixin):
        return model._default_manager.none()
    rows = model._default_manager.all()
    if issubclass(model, Page):
        rows = rows.filter(alias_of__isnull=True)  # an alias is never a draft of ours
    sources = model._default_manager.filter(locale=source).values("translation_key")
    translated = Unit.objects.filter(
        status=UnitStatus.SUCCEEDED, reverted_at__isnull=True, target_locale=target
    ).values("object_key")
    return rows.filter(
        locale=target,
        live=False,
        translation_key__in=sources,
    ).filter(translation_key__in=translated)


def publish_drafts(label: str, source: Locale, target: Locale, user: Any) -> Published:
    drafts = translated_drafts(label, source, target).order_by("pk")
    total = drafts.count()
    published = not_allowed = 0
    for obj in drafts[:MAX_PER_REQUEST]:
        if not may_publish(user, obj):
            not_allowed += 1
            continue
        revision = obj.latest_revision or obj.save_revision(user=user)
        revision.publish(user=user)
        published += 1
    return Published(published, not_allowed, max(total - MAX_PER_REQUEST, 0))


def may_publish(user: Any, obj: Any) -> bool:
    if isinstance(obj, Page):
        return obj.permissions_for_user(user).can_publish()
    meta = obj._meta
    return user.has_perm(f"{meta.app_label}.publish_{meta.model_name}")
