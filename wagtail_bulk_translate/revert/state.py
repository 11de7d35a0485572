"""What a unit records so that revert can undo its write: a typed view of ``Unit.revert_state``.

The engine fills it in when it writes a target; revert reads it back. The JSON layout (kept
flat, keys unchanged) is what older runs stored, so they stay revertible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import models
from wagtail.models import DraftStateMixin, Page, RevisionMixin

from .snapshots import serialize


@dataclass
class StringChanges:
    """StringTranslations a unit created (their keys) or changed (their previous rows)."""

    created: list[tuple[int, int]] = field(default_factory=list)  # (string id, context id)
    updated: list[dict[str, Any]] = field(default_factory=list)  # {"id": pk, field: old value}

    def merged(self, other: StringChanges) -> StringChanges:
        return StringChanges(self.created + other.created, self.updated + other.updated)

    def to_json(self) -> dict[str, list]:
        return {"created": [list(key) for key in self.created], "updated": self.updated}

    @classmethod
    def from_json(cls, data: dict[str, list] | None) -> StringChanges:
        data = data or {}
        return cls([(s, c) for s, c in data.get("created", [])], list(data.get("updated", [])))


@dataclass
class TargetSnapshot:
    """A target as it was before the unit wrote it (``existed`` False: the unit created it)."""

    existed: bool
    pk: str | None = None
    content: dict[str, Any] | None = None
    latest_revision_id: int | None = None
    live: bool | None = None
    live_revision_id: int | None = None
    has_unpublished_changes: bool | None = None

    @classmethod
    def of(cls, target: models.Model | None) -> TargetSnapshot:
        if target is None or target.pk is None:
            return cls(existed=False)
        snapshot = cls(existed=True, pk=str(target.pk), content=serialize(target))
        if isinstance(target, RevisionMixin):
            snapshot.latest_revision_id = target.latest_revision_id
        if isinstance(target, DraftStateMixin):
            snapshot.live = target.live
            snapshot.live_revision_id = target.live_revision_id
        if isinstance(target, Page):
            snapshot.has_unpublished_changes = target.has_unpublished_changes
        return snapshot


SNAPSHOT_KEYS = (
    "existed",
    "pk",
    "content",
    "latest_revision_id",
    "live",
    "live_revision_id",
    "has_unpublished_changes",
)


@dataclass
class RevertState:
    before: TargetSnapshot
    written: str  # fingerprint of the target right after the write (later edits differ)
    created: bool = False
    revision_id: int | None = None
    translation_created: bool = False
    strings: StringChanges = field(default_factory=StringChanges)

    @property
    def target_created(self) -> bool:
        return self.created or not self.before.existed

    def to_json(self) -> dict[str, Any]:
        before = {key: getattr(self.before, key) for key in SNAPSHOT_KEYS}
        return {
            **{key: value for key, value in before.items() if value is not None},
            "created": self.created,
            "revision_id": self.revision_id,
            "translation_created": self.translation_created,
            "strings": self.strings.to_json(),
            "written": self.written,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RevertState:
        before = TargetSnapshot(
            existed=bool(data.get("existed", True)),
            **{key: data.get(key) for key in SNAPSHOT_KEYS if key != "existed"},
        )
        return cls(
            before=before,
            written=data.get("written") or "",
            created=bool(data.get("created")),
            revision_id=data.get("revision_id"),
            translation_created=bool(data.get("translation_created")),
            strings=StringChanges.from_json(data.get("strings")),
        )
