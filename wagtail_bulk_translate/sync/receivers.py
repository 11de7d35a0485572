"""Signal receivers: a publish (or a snippet save) of a synced source records a change.

Publishing must stay fast and must never fail because of sync. So a receiver does nothing in
the publish's transaction: with sync switched off it returns at once (no query); otherwise it
asks for its work to run once the transaction has committed, and that work logs any exception
instead of raising it. No translator is called and nothing is waited for: the change is a row
and, for the first publish of a burst, one delayed task (pending.py).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models.signals import post_save, pre_delete
from wagtail.models import DraftStateMixin, Page, TranslatableMixin
from wagtail.signals import page_published, page_unpublished, post_page_move, published, unpublished

from ..conf import get_settings
from ..models import SyncEventKind
from . import pending
from .configuration import coverage, covers, enabled_configurations

logger = logging.getLogger(__name__)

Receiver = Callable[..., None]


def never_fails(receiver: Receiver) -> Receiver:
    """A receiver that logs its exceptions: a sync bug never breaks a publish or a delete."""

    @functools.wraps(receiver)
    def guarded(*args: Any, **kwargs: Any) -> None:
        try:
            receiver(*args, **kwargs)
        except Exception:
            logger.exception("Automatic sync: %s failed; the edit itself went through.", receiver)

    return guarded


def after_commit(work: Callable[[], None]) -> None:
    transaction.on_commit(never_fails(work))


def is_syncable(instance: Any) -> bool:
    return get_settings().SYNC_ENABLED and isinstance(instance, TranslatableMixin)


def user_of(revision: Any) -> Any:
    return getattr(revision, "user", None)


def record_if_covered(instance: Any, user: Any) -> None:
    if coverage(instance) is not None:
        pending.record_change(instance, user)


@never_fails
def on_published(sender: Any, instance: Any, revision: Any = None, **kwargs: Any) -> None:
    """``page_published``, and ``published`` for snippets with drafts (Wagtail sends both for
    a page: the page is recorded once, from ``page_published``)."""
    if kwargs.get("signal") is published and isinstance(instance, Page):
        return
    if is_syncable(instance):
        after_commit(lambda: record_if_covered(instance, user_of(revision)))


@never_fails
def on_snippet_saved(sender: Any, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    """A translatable snippet without drafts is "published" by every save (a page's inline
    children are saved with it, and are not snippets: nothing to look up for them)."""
    if raw or isinstance(instance, Page | DraftStateMixin) or not is_syncable(instance):
        return
    if not is_snippet(instance):
        return
    after_commit(lambda: record_if_covered(instance, None))


def report(kind: str, instance: Any, user: Any, *, was_covered: bool | None = None) -> None:
    if was_covered is None:
        was_covered = coverage(instance) is not None
    if was_covered and get_settings().SYNC_ON_SOURCE_REMOVED == "report":
        pending.record_event(kind, instance, user)


@never_fails
def on_unpublished(sender: Any, instance: Any, **kwargs: Any) -> None:
    if kwargs.get("signal") is unpublished and isinstance(instance, Page):
        return  # reported once, from page_unpublished
    if is_syncable(instance):
        after_commit(lambda: report_unpublished(instance, kwargs.get("user")))


def report_unpublished(instance: Any, user: Any) -> None:
    # Deleting a live page unpublishes it first: that is reported as the deletion only.
    if type(instance)._default_manager.filter(pk=instance.pk).exists():
        report(SyncEventKind.UNPUBLISHED, instance, user)


@never_fails
def on_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    if not is_syncable(instance) or not (isinstance(instance, Page) or is_snippet(instance)):
        return
    if isinstance(instance, Page) and type(instance) is not instance.specific_class:
        return  # the same page's base row (multi-table inheritance): reported once
    # Read the instance's place now: after the delete its tree is gone.
    was_covered = coverage(instance) is not None

    def forget_and_report() -> None:
        pending.forget_change(instance)
        report(SyncEventKind.DELETED, instance, None, was_covered=was_covered)

    if was_covered:
        after_commit(forget_and_report)


def is_snippet(instance: Any) -> bool:
    from wagtail.snippets.models import get_snippet_models

    return type(instance) in get_snippet_models()


@never_fails
def on_page_moved(
    sender: Any, instance: Any, parent_page_before: Any = None, **kwargs: Any
) -> None:
    if not is_syncable(instance) or parent_page_before == kwargs.get("parent_page_after"):
        return  # a reorder among siblings is no move

    def report_and_follow() -> None:
        configurations = enabled_configurations()
        before = parent_page_before is not None and any(
            covers(c, parent_page_before) for c in configurations
        )
        report(SyncEventKind.MOVED, instance, None, was_covered=before)
        if coverage(instance, configurations) is not None:
            pending.record_change(instance, None)  # moved into a synced tree

    after_commit(report_and_follow)


def connect() -> None:
    """Called by the app config's ``ready()``."""
    uid = "wagtail_bulk_translate.sync"
    page_published.connect(on_published, dispatch_uid=f"{uid}.page_published")
    published.connect(on_published, dispatch_uid=f"{uid}.published")
    post_save.connect(on_snippet_saved, dispatch_uid=f"{uid}.post_save")
    page_unpublished.connect(on_unpublished, dispatch_uid=f"{uid}.page_unpublished")
    unpublished.connect(on_unpublished, dispatch_uid=f"{uid}.unpublished")
    pre_delete.connect(on_deleted, dispatch_uid=f"{uid}.pre_delete")
    post_page_move.connect(on_page_moved, dispatch_uid=f"{uid}.post_page_move")
