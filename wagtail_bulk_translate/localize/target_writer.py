"""Writing a translated target from a TranslationSource and the stored translations.

This follows wagtail-localize's ``TranslationSource.create_or_update_translation`` with three
differences that matter for bulk runs:

* a draft of an existing *live* target only adds a revision: wagtail-localize saves the page
  row, which is the live content, so its "draft" would go live immediately;
* publishing happens inside the caller's transaction (not ``on_commit``), so a target is
  written and published, or neither;
* strings must be complete: a missing translation raises instead of silently falling back to
  the source text, so nothing untranslated is published. Related objects (snippet choosers)
  still fall back to the source-locale object until that object is translated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import models
from django.utils.text import slugify
from wagtail.coreutils import find_available_slug
from wagtail.log_actions import log
from wagtail.models import (
    DraftStateMixin,
    LockableMixin,
    Page,
    RevisionMixin,
    TranslatableMixin,
)
from wagtail_localize.fields import copy_synchronised_fields
from wagtail_localize.models import Translation, TranslationLog, TranslationSource
from wagtail_localize.segments.ingest import ingest_segments

from ..errors import ErrorCode, UnitError


@dataclass(frozen=True)
class WrittenTarget:
    instance: models.Model
    created: bool
    revision_id: int | None
    translation_created: bool


def can_be_draft(instance: models.Model) -> bool:
    return isinstance(instance, DraftStateMixin)


# The log entry that names the run on each target it wrote (registered in admin.log_actions).
TRANSLATED_ACTION = "wagtail_bulk_translate.translated"


def write_target(
    source: TranslationSource,
    locale: Any,
    *,
    user: Any = None,
    publish: bool,
    run_id: int | None = None,
) -> WrittenTarget:
    """Create or update the translation of ``source`` in ``locale``. Call inside a transaction.

    Revisions and log entries are credited to ``user`` (who started the run), and a log entry
    on the target names run ``run_id``.
    """
    original = source.as_instance()
    segments = source._get_segments_for_translation(locale, fallback=True)
    target = existing_target(source, locale)
    created = target is None
    if target is None:
        # Not inside the `except` of the lookup: tasks the creation runs inline (an immediate
        # task backend) would log that exception, still being handled, as their traceback.
        target = new_target(original, locale, translated_slug(segments), user=user)
    was_live = bool(getattr(target, "live", False)) and not created
    copy_synchronised_fields_keeping_state(original, target)
    chosen_slug = getattr(target, "slug", None)
    ingest_segments(original, target, source.locale, locale, segments)
    if isinstance(target, Page) and created:
        # new_page chose the final, available slug under the parent's lock (ingesting put the
        # raw translated slug back), and nobody else can have added children to a page created
        # in this transaction: no second lock or slug lookup, as save_page does.
        target.slug = chosen_slug
        revision = save_page_content(target, user=user, publish=publish)
    elif isinstance(target, Page):
        revision = save_page(target, user=user, publish=publish, keep_row=was_live and not publish)
    elif isinstance(target, DraftStateMixin):
        revision = save_draftable(target, user=user, publish=publish, was_live=was_live)
    elif isinstance(target, RevisionMixin):
        target.save()
        revision = target.save_revision(user=user)
    else:
        target.full_clean()
        target.save()
        revision = None
    translation_created = register_translation(source, locale)
    TranslationLog.objects.create(source=source, locale=locale, revision=revision)
    if run_id is not None:
        log(
            instance=target,
            action=TRANSLATED_ACTION,
            user=user,
            revision=revision,
            data={"run": run_id, "locale": locale.language_code},
        )
    return WrittenTarget(target, created, getattr(revision, "pk", None), translation_created)


def existing_target(source: TranslationSource, locale: Any) -> models.Model | None:
    try:
        return source.get_translated_instance(locale)
    except models.ObjectDoesNotExist:
        return None


# The target's own publishing and locking state, which wagtail-localize would otherwise copy
# from the source as "synchronised" fields on models that are not pages.
OWN_STATE_FIELDS = (
    "live",
    "has_unpublished_changes",
    "first_published_at",
    "last_published_at",
    "live_revision_id",
    "latest_revision_id",
    "latest_revision_created_at",
    "go_live_at",
    "expire_at",
    "expired",
    "locked",
    "locked_at",
    "locked_by_id",
)


# A new target is never locked: the source's lock is an editor's hold on the source, and a
# locked translation could never be published by a later run (it skips locked targets).
UNLOCKED = {"locked": False, "locked_at": None, "locked_by": None}


def copy_synchronised_fields_keeping_state(original: models.Model, target: models.Model) -> None:
    own = {name: getattr(target, name) for name in OWN_STATE_FIELDS if hasattr(target, name)}
    copy_synchronised_fields(original, target)
    for name, value in own.items():
        setattr(target, name, value)


def register_translation(source: TranslationSource, locale: Any) -> bool:
    """Make the target a synced wagtail-localize translation, as its own buttons would.

    Editors then fix machine output in wagtail-localize's translation editor, and later runs
    tell the pipeline's targets from hand-made ones.
    """
    _translation, created = Translation.objects.get_or_create(
        source=source, target_locale=locale, defaults={"enabled": True}
    )
    return created


def translated_slug(segments: list) -> str | None:
    return next((s.string.data for s in segments if getattr(s, "path", None) == "slug"), None)


def new_target(original: Any, locale: Any, slug: str | None = None, *, user: Any = None) -> Any:
    if isinstance(original, Page):
        return new_page(original, locale, slug or original.slug, user=user)
    target = original.copy_for_translation(locale)
    if isinstance(target, DraftStateMixin):
        # A new translation has never been published: none of the source's publishing
        # history (live revision, publication dates) belongs to it.
        target.live = False
        target.live_revision = None
        target.first_published_at = target.last_published_at = None
    if isinstance(target, RevisionMixin):
        target.latest_revision = None
    if isinstance(target, LockableMixin):
        for name, value in UNLOCKED.items():
            setattr(target, name, value)
    return target


def new_page(original: Page, locale: Any, slug: str, *, user: Any = None) -> Page:
    """Create the page under its parent's translation, with its final slug from the start.

    Unlike ``copy_for_translation``, the slug never changes after creation (a slug change
    leaves an automatic redirect behind), and missing parents are an error instead of live
    untranslated aliases: runs translate a page's missing ancestors first.
    """
    parent = original.get_parent().specific
    if parent.is_root():
        translated_parent = parent
    else:
        translated_parent = parent.get_translation_or_none(locale)
        if translated_parent is None:
            raise UnitError(
                ErrorCode.VALIDATION_ERROR,
                f"Its parent page {parent.title!r} has no {locale} translation; "
                "translate the parent first.",
            )
    lock_tree_row(translated_parent)  # siblings are numbered from the parent's current count
    return original.copy(
        to=translated_parent,
        update_attrs={
            "locale": locale,
            **UNLOCKED,
            "slug": find_available_slug(
                translated_parent, page_slug(slug) or page_slug(original.slug) or "page"
            ),
        },
        copy_revisions=False,
        keep_live=False,
        user=user,  # credited with the copy (owner, log entry), as the run's own writes are
        reset_translation_key=False,
        process_child_object=move_child_to_locale(locale),
        log_action="wagtail.copy_for_translation",
    )


def page_slug(value: str) -> str:
    """A valid slug that fits the field, leaving room for find_available_slug's suffix."""
    limit = Page._meta.get_field("slug").max_length - 10
    return slugify(value, allow_unicode=True)[:limit].strip("-")


def move_child_to_locale(locale: Any) -> Any:
    def process_child_object(
        original_page: Any, page_copy: Any, child_relation: Any, child_object: Any
    ) -> None:
        if isinstance(child_object, TranslatableMixin):
            child_object.locale = locale

    return process_child_object


# Treebeard's own columns: other workers change them (adding children updates ``numchild``), so a
# write never takes them from an instance loaded earlier.
TREE_FIELDS = ("path", "depth", "numchild", "url_path")


def lock_tree_row(page: Page) -> None:
    """Lock the page's row for this transaction and take its tree fields as they are now.

    The instance was loaded before the write began; meanwhile other workers may have added
    children under it. Saving it as loaded would write back the old ``numchild``, and Wagtail
    (routing, the explorer) would then lose the newer children. Holding the row lock until
    commit makes treebeard's ``numchild`` updates of other writers wait for this write.
    """
    if page.pk is None:
        return
    current = Page.objects.select_for_update().filter(pk=page.pk).values(*TREE_FIELDS).get()
    for name, value in current.items():
        setattr(page, name, value)


def save_page(page: Page, *, user: Any, publish: bool, keep_row: bool) -> Any:
    lock_tree_row(page)
    if page.alias_of_id:
        page.alias_of_id = None
        page.save(update_fields=["alias_of_id"], clean=False)
    if not keep_row:
        page.slug = find_available_slug(
            page.get_parent(), page_slug(page.slug) or page.slug, ignore_page_id=page.pk
        )
    if keep_row:
        # Existing live page, draft requested: the row is the live content, leave it alone.
        page.full_clean()
        return page.save_revision(user=user, log_action=True, clean=False)
    return save_page_content(page, user=user, publish=publish)


def save_page_content(page: Page, *, user: Any, publish: bool) -> Any:
    validate_before_saving(page, complete=not publish)
    if not publish:
        page.save(clean=False)  # a draft's row holds its content too (publishing writes it)
    revision = page.save_revision(user=user, log_action=True, clean=False)
    if publish:
        revision.publish(user=user, skip_permission_checks=True)
    return revision


def validate_before_saving(page: Page, *, complete: bool) -> None:
    """Validate before anything is saved, keyed by field, so the unit's reason names the field:
    saving the revision first would meet the database's own limits (a title over 255
    characters on PostgreSQL) with an error that names none.

    ``complete=False`` when publishing follows: Wagtail's publish runs the complete
    ``full_clean`` before it saves, so here the values are enough (their foreign keys and
    uniqueness would cost a query each, twice).
    """
    if complete:
        page.full_clean()
        return
    relations = [f.name for f in page._meta.concrete_fields if f.is_relation]
    page.full_clean(exclude=relations, validate_unique=False, validate_constraints=False)


def save_draftable(instance: Any, *, user: Any, publish: bool, was_live: bool) -> Any:
    if was_live and not publish:
        return instance.save_revision(user=user)
    if not was_live:
        instance.live = False
    instance.full_clean()
    instance.save()
    revision = instance.save_revision(user=user)
    if publish:
        revision.publish(user=user, skip_permission_checks=True)
    return revision
