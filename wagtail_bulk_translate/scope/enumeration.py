"""The streaming enumeration of a scope, resumable from an exact cursor.

Enumeration walks a scope as a fixed list of *segments* (snippets and settings first, so pages
that refer to them find their translations; then each page subtree in tree order, parents before
children; then explicit objects). Each segment is read with keyset pagination, so a cursor
``{"segment": i, "after": key, "position": n}`` resumes exactly where a tick stopped.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models
from wagtail.models import Locale, Page

from ..objects import objects_by_pk
from ..translatable_settings import is_site_setting, site_locale_map
from .definition import Scope, resolve_model

SITE_SETTING_KEY_NAMESPACE = uuid.UUID("5d3c1b52-7b7a-4c3e-9d0e-0c3c0f6a5b21")

# What a segment reader returns: objects read, the last key read, whether the segment is over.
Read = tuple[list["ScopedObject"], Any, bool]


@dataclass(frozen=True)
class ScopedObject:
    """One source object found by enumeration."""

    content_type_id: int
    object_id: str
    object_key: uuid.UUID
    # Per-site settings only translate into locales a site serves; None means "all targets".
    target_locale_ids: frozenset[int] | None = None


@dataclass(frozen=True)
class Batch:
    objects: list[ScopedObject]
    cursor: dict[str, Any]
    done: bool


def pages_in_tree_order(items: list, loaded: dict) -> list:
    """Pages sorted by tree position (parents first) in the slots pages occupy; other objects
    stay where the editor listed them."""

    def page_of(item: list) -> Any:
        obj = loaded.get((item[0], str(item[1])))
        return obj if isinstance(obj, Page) else None

    pages = iter(sorted((i for i in items if page_of(i)), key=lambda i: page_of(i).path))
    return [next(pages) if page_of(item) else item for item in items]


class Enumerator:
    """Streams a scope's objects in batches from a resumable cursor."""

    def __init__(
        self,
        scope: Scope,
        source_locale: Locale,
        batch_size: int,
        target_locale_ids: list[int] | None = None,
    ) -> None:
        self.scope = scope
        self.source_locale = source_locale
        self.batch_size = batch_size
        self.target_locale_ids = target_locale_ids
        self.excluded_ct_ids = {
            ContentType.objects.get_for_model(resolve_model(label)).pk
            for label in scope.exclude_models
        }
        self.segments = self._segments()

    def _segments(self) -> list[tuple[str, Any]]:
        segments: list[tuple[str, Any]] = []
        for label in dict.fromkeys([*self.scope.snippets, *self.scope.settings]):
            model = resolve_model(label)
            kind = "site_setting" if is_site_setting(model) else "model"
            segments.append((kind, label))
        roots = self._page_roots()
        if roots or self.scope.objects:
            # Parents before children: untranslated ancestors outside the scope come first.
            segments.append(("ancestors", roots))
        segments.extend(("pages", root) for root in roots)
        if self.scope.objects:
            segments.append(("objects", roots))
        return segments

    def _page_roots(self) -> list[dict[str, Any]]:
        """Drop roots already covered by another root's subtree, keep the given order."""
        pages = {p.pk: p for p in Page.objects.filter(pk__in=[r["id"] for r in self.scope.pages])}
        subtree_paths = [pages[r["id"]].path for r in self.scope.pages if r.get("descendants")]
        roots: dict[str, bool] = {}
        for root in self.scope.pages:
            page = pages[root["id"]]
            covered = any(page.path.startswith(p) and page.path != p for p in subtree_paths)
            if not covered:
                roots[page.path] = roots.get(page.path, False) or bool(root.get("descendants"))
        # Tree order whatever order the editor listed them in: parents before children.
        return [{"path": path, "descendants": roots[path]} for path in sorted(roots)]

    def next_batch(self, cursor: dict[str, Any] | None) -> Batch:
        cursor = dict(cursor or {"segment": 0, "after": None, "position": 0})
        found: list[ScopedObject] = []
        while len(found) < self.batch_size and cursor["segment"] < len(self.segments):
            kind, arg = self.segments[cursor["segment"]]
            rows, last_key = self._read(kind, arg, cursor["after"], self.batch_size - len(found))
            found.extend(rows)
            if last_key is None:
                cursor.update(segment=cursor["segment"] + 1, after=None)
            else:
                cursor["after"] = last_key
        cursor["position"] += len(found)
        return Batch(found, cursor, done=cursor["segment"] >= len(self.segments))

    def _read(self, kind: str, arg: Any, after: Any, limit: int) -> tuple[list[ScopedObject], Any]:
        """Read up to ``limit`` objects of one segment; last_key None means it is exhausted."""
        readers: dict[str, Any] = {
            "pages": self._read_pages,
            "model": self._read_model,
            "site_setting": self._read_site_settings,
            "objects": self._read_objects,
            "ancestors": self._read_ancestors,
        }
        rows, last_key, exhausted = readers[kind](arg, after, limit)
        return rows, (None if exhausted else last_key)

    def _read_pages(self, root: dict[str, Any], after: str | None, limit: int) -> Read:
        qs = Page.objects.filter(locale=self.source_locale, alias_of__isnull=True)
        if root["descendants"]:
            qs = qs.filter(path__startswith=root["path"])
        else:
            qs = qs.filter(path=root["path"])
        if after is not None:
            qs = qs.filter(path__gt=after)
        rows = list(
            qs.order_by("path").values_list("path", "pk", "content_type_id", "translation_key")[
                :limit
            ]
        )
        objects = [
            ScopedObject(ct_id, str(pk), key)
            for _path, pk, ct_id, key in rows
            if ct_id not in self.excluded_ct_ids
        ]
        return objects, (rows[-1][0] if rows else after), len(rows) < limit

    def _read_ancestors(self, roots: list[dict[str, Any]], after: str | None, limit: int) -> Read:
        """Ancestors of the scope's pages that lack a translation in some target locale.

        A translated page needs its parents translated first; rather than letting them be
        created as untranslated copies, they become units of the run, for the locales that miss
        them. Keyset on the path, so a recomputation between ticks cannot shift the cursor.
        """
        paths = [root["path"] for root in roots] + self._explicit_page_paths()
        ancestor_paths = {
            path[:end] for path in paths for end in range(2 * Page.steplen, len(path), Page.steplen)
        }
        ancestor_paths = {p for p in ancestor_paths if not self._covered(p, roots)}
        if after is not None:
            ancestor_paths = {p for p in ancestor_paths if p > after}
        ancestors = Page.objects.filter(
            path__in=ancestor_paths, locale=self.source_locale, alias_of__isnull=True
        ).order_by("path")
        rows = list(ancestors.values_list("path", "pk", "content_type_id", "translation_key"))
        wanted = self._locales_missing([key for *_rest, key in rows])
        objects = []
        for path, pk, ct_id, key in rows[:limit]:
            if wanted.get(key) and ct_id not in self.excluded_ct_ids:
                objects.append(ScopedObject(ct_id, str(pk), key, frozenset(wanted[key])))
            after = path
        return objects, after, len(rows) <= limit

    @staticmethod
    def _covered(path: str, roots: list[dict[str, Any]]) -> bool:
        """Whether a page segment already enumerates the page at ``path``."""
        return any(
            path == root["path"] or (root["descendants"] and path.startswith(root["path"]))
            for root in roots
        )

    def _explicit_page_paths(self) -> list[str]:
        pks = [pk for label, pk in self.scope.objects if issubclass(resolve_model(label), Page)]
        return list(Page.objects.filter(pk__in=pks).values_list("path", flat=True))

    def _locales_missing(self, keys: list[uuid.UUID]) -> dict[uuid.UUID, set[int]]:
        targets = set(
            self.target_locale_ids
            if self.target_locale_ids is not None
            else Locale.objects.exclude(pk=self.source_locale.pk).values_list("pk", flat=True)
        )
        present: dict[uuid.UUID, set[int]] = {key: set() for key in keys}
        translated = Page.objects.filter(
            translation_key__in=keys, locale_id__in=targets, alias_of__isnull=True
        ).values_list("translation_key", "locale_id")
        for key, locale_id in translated:
            present[key].add(locale_id)
        return {key: targets - locales for key, locales in present.items()}

    def _read_model(self, label: str, after: str | None, limit: int) -> Read:
        model = resolve_model(label)
        content_type_id = ContentType.objects.get_for_model(model).pk
        if content_type_id in self.excluded_ct_ids:
            return [], after, True
        qs = model._default_manager.filter(locale=self.source_locale)
        pks = list(self._keyset(qs, after).values_list("pk", "translation_key")[:limit])
        objects = [ScopedObject(content_type_id, str(pk), key) for pk, key in pks]
        return objects, (pks[-1][0] if pks else after), len(pks) < limit

    def _read_site_settings(self, label: str, after: Any, limit: int) -> Read:
        model = resolve_model(label)
        content_type_id = ContentType.objects.get_for_model(model).pk
        served = site_locale_map()
        source_sites = [sid for sid, loc in served.items() if loc.pk == self.source_locale.pk]
        targets = frozenset(loc.pk for loc in served.values() if loc.pk != self.source_locale.pk)
        qs = model._default_manager.filter(site_id__in=source_sites)
        pks = list(self._keyset(qs, after).values_list("pk", flat=True)[:limit])
        objects = [
            ScopedObject(content_type_id, str(pk), site_setting_key(label, pk), targets)
            for pk in pks
        ]
        return objects, (pks[-1] if pks else after), len(pks) < limit

    def _read_objects(self, roots: list[dict[str, Any]], after: int | None, limit: int) -> Read:
        """Explicit objects, a few queries per batch (one per model), skipping any that another
        segment of the scope already enumerates."""
        start = 0 if after is None else after + 1
        items = self.scope.objects[start : start + limit]
        by_model: dict[str, list[str]] = {}
        for label, pk in items:
            by_model.setdefault(label, []).append(pk)
        loaded = {
            (label, str(pk)): obj
            for label, pks in by_model.items()
            for pk, obj in self._load(label, pks).items()
        }
        objects, seen = [], set()
        items = pages_in_tree_order(items, loaded)
        for label, pk in items:
            obj = loaded.get((label, str(pk)))
            scoped = self._explicit_object(label, obj, roots) if obj is not None else None
            if scoped is not None and (scoped.content_type_id, scoped.object_id) not in seen:
                seen.add((scoped.content_type_id, scoped.object_id))
                objects.append(scoped)
        last = start + len(items) - 1
        return objects, last, start + limit >= len(self.scope.objects)

    @staticmethod
    def _load(label: str, pks: list[str]) -> dict[Any, models.Model]:
        return objects_by_pk(resolve_model(label), pks)

    def _explicit_object(
        self, label: str, obj: Any, roots: list[dict[str, Any]]
    ) -> ScopedObject | None:
        model = type(obj)
        if isinstance(obj, Page):
            if self._covered(obj.path, roots):
                return None
            content_type_id = obj.content_type_id
        else:
            if label in self.scope.snippets or label in self.scope.settings:
                return None
            content_type_id = ContentType.objects.get_for_model(model).pk
        if content_type_id in self.excluded_ct_ids:
            return None
        if is_site_setting(model):
            served = site_locale_map()
            targets = frozenset(
                loc.pk for loc in served.values() if loc.pk != self.source_locale.pk
            )
            return ScopedObject(
                content_type_id, str(obj.pk), site_setting_key(label, obj.pk), targets
            )
        return ScopedObject(content_type_id, str(obj.pk), obj.translation_key)

    @staticmethod
    def _keyset(qs: models.QuerySet, after: Any) -> models.QuerySet:
        if after is not None:
            qs = qs.filter(pk__gt=after)
        return qs.order_by("pk")


def site_setting_key(label: str, pk: Any) -> uuid.UUID:
    """Stable identity of a per-site settings row (they have no translation_key)."""
    return uuid.uuid5(SITE_SETTING_KEY_NAMESPACE, f"{label.lower()}:{pk}")


def iter_scope(
    scope: Scope, source_locale: Locale, batch_size: int = 500
) -> Iterable[ScopedObject]:
    """Every object of a scope, in enumeration order (used by previews and tests)."""
    enumerator = Enumerator(scope, source_locale, batch_size)
    cursor = None
    while True:
        batch = enumerator.next_batch(cursor)
        yield from batch.objects
        if batch.done:
            return
        cursor = batch.cursor
