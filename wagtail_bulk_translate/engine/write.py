"""Step 4: store the strings copied rather than translated, then write each target.

Each target is written in its own transaction, fenced by the unit's lease token, and complete
or not at all: a string without a valid translation fails the unit instead of publishing source
text, and a source edited since it was extracted is not written (the unit is retried).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F
from wagtail.models import Page, Site
from wagtail.signal_handlers import disable_reference_index_auto_update

from .. import schedule
from ..errors import ErrorCode, UnitError, UnitSkipped
from ..localize import site_settings
from ..localize.sources import check_complete
from ..localize.strings import stored_translation
from ..localize.target_writer import can_be_draft, page_slug, write_target
from ..models import ContentSource, Run, Unit, UnitStatus
from ..revert.snapshots import row_fingerprint
from ..revert.state import RevertState, TargetSnapshot
from ..scope.permissions import check_unit_permitted
from . import claims, review
from .plan import DERIVE_SLUG, decide_publish
from .prepare import check_source_unchanged
from .text_kinds import plain_text
from .translate import WAIT_SECONDS, store_machine_strings
from .work import ObjectWork, UnitWork

CANARY_WITHOUT_DRAFTS = (
    "Strings translated and stored; the target is not written by a canary because this model "
    "has no drafts. Promoting the canary writes it."
)


def write_unit(run: Run, token: str, obj: ObjectWork, work: UnitWork) -> None:
    if obj.is_site_setting:
        check_translations(work)
        write_site_setting(run, token, obj, work)
        return
    resolve_derived_slug(obj, work)
    store_copied_strings(run, work)
    check_translations(work)
    publish = decide_publish(run, obj.instance)
    # A flagged target, or one with texts held in the source language, waits as a draft.
    flags = review.flagged_texts(run, work) + review.held_texts(work)
    if run.is_canary and not can_be_draft(obj.instance):
        finish_without_write(token, work)  # canary output is drafts only
        return
    if wait_for_parent(run, token, obj, work):
        return
    with transaction.atomic():
        if not claims.hold_lease(work.unit, token):
            work.done = True
            return  # lost the lease: a newer attempt owns this unit now
        check_source_unchanged(obj)
        check_unit_permitted(run, obj.instance, work.unit.target_locale, publish=publish)
        check_complete(obj.source, work.unit.target_locale, held_string_ids(work))
        before = TargetSnapshot.of(work.target)
        path_before = getattr(work.target, "url_path", None)
        # Writing a target may save its inline (ParentalKey) children several times, and
        # replace their rows (wagtail-localize copies children of models that are not
        # translatable as new rows). Wagtail would queue a reference-index task per child row
        # saved, and the tasks for rows replaced before they run fail with DoesNotExist: index
        # the target once, after commit, instead.
        with disable_reference_index_auto_update():
            written = write_target(
                obj.source,
                work.unit.target_locale,
                user=run.created_by,
                publish=publish and not flags,
                run_id=run.pk,
            )
        target = written.instance
        transaction.on_commit(lambda: schedule.update_reference_index(target))
        forget_site_roots_if_moved(path_before, target)
        state = RevertState(
            before=before,
            written=row_fingerprint(written.instance),
            created=written.created,
            revision_id=written.revision_id,
            translation_created=written.translation_created,
            strings=work.string_changes,
        )
        review.mark_for_review(work, flags, publish, obj.instance)
        read = source_revision_id(run, obj.instance)
        finish_written(token, obj, work, str(written.instance.pk), state, read)
        wake_waiting_children(obj, work)


def forget_site_roots_if_moved(path_before: str | None, target: object) -> None:
    """A run that creates (or renames) a locale's home page changes Wagtail's site root paths.

    Wagtail clears their cache when the page is saved, but inside this transaction: a request
    served before the commit caches the old paths again (for an hour), and the web process then
    answers 500 on that locale's pages. Clear it once more after the commit.
    """
    if not isinstance(target, Page):
        return
    if path_before == target.url_path:
        return
    if target.is_site_root():
        transaction.on_commit(Site.clear_site_root_paths_cache)


def wake_waiting_children(obj: ObjectWork, work: UnitWork) -> None:
    """Children of this page given back to wait for its target in this locale (any run) can be
    written now: wake them at once instead of letting their wait run out. In the transaction
    that writes the target, so a woken child always finds it."""
    page = obj.instance
    if not isinstance(page, Page) or not page.numchild:
        return
    children = Page.objects.child_of(page).values("translation_key")
    locale_id = work.unit.target_locale_id
    claims.wake_waiting(Unit.objects.filter(object_key__in=children, target_locale_id=locale_id))


def finish_written(
    token: str,
    obj: ObjectWork,
    work: UnitWork,
    target_id: str,
    state: RevertState,
    source_revision: int | None = None,
) -> None:
    claims.finish_unit(
        work.unit,
        token,
        UnitStatus.SUCCEEDED,
        error_code=ErrorCode.HELD_FOR_REVIEW if work.held else "",
        error_message=review.held_message(work),
        strings_translated=work.needs.count,
        billed_characters=F("billed_characters") + work.billed,
        source_hash=obj.hashes[work.unit.target_locale_id],
        target_object_id=target_id,
        revert_state=state.to_json(),
        source_revision_id=source_revision,
    )
    work.done = True


def held_string_ids(work: UnitWork) -> set[int]:
    return {s.string_id for s in work.held if s.string_id is not None}


def source_revision_id(run: Run, instance: Any) -> int | None:
    """The revision of the source the unit read: the latest one when the run reads drafts
    (``instance`` is that revision's object), else the live one (None for content published
    without revisions, as imports do); for models without drafts, the latest."""
    if run.content_source == ContentSource.LATEST_DRAFT or not hasattr(
        instance, "live_revision_id"
    ):
        return getattr(instance, "latest_revision_id", None)
    return instance.live_revision_id


def resolve_derived_slug(obj: ObjectWork, work: UnitWork) -> None:
    slug = next((s for s, v in work.needs.resolved.items() if v is DERIVE_SLUG), None)
    if slug is None:
        return
    title = next((s for s in obj.strings if s.path == "title"), None)
    title_text = work.translated.get(title) if title else None
    if title_text is None and title is not None:
        title_text = stored_translation(title, work.unit.target_locale_id)
    derived = page_slug(plain_text(title_text or slug.data))
    work.needs.resolved[slug] = derived or slug.data


def store_copied_strings(run: Run, work: UnitWork) -> None:
    """Store the strings copied rather than translated (non-prose, slug)."""
    with transaction.atomic():
        copied = store_machine_strings(
            run, work.unit.target_locale_id, work.needs.resolved, work.tool
        )
    work.string_changes = work.string_changes.merged(copied)


def check_translations(work: UnitWork) -> None:
    """Refuse to write a target whose strings are missing a translation (held ones aside)."""
    missing = work.untranslated()
    if missing:
        raise UnitError(
            ErrorCode.TRANSLATOR_ERROR,
            f"The translator returned nothing for {len(missing)} string(s); "
            "the target was not written.",
        )


def finish_without_write(token: str, work: UnitWork) -> None:
    claims.finish_unit(
        work.unit,
        token,
        UnitStatus.SUCCEEDED,
        note=CANARY_WITHOUT_DRAFTS,
        strings_translated=work.needs.count,
        billed_characters=F("billed_characters") + work.billed,
    )
    work.done = True


def wait_for_parent(run: Run, token: str, obj: ObjectWork, work: UnitWork) -> bool:
    """Release a new page whose parent this run has yet to write in that locale.

    Writing it now would make wagtail-localize create the parent as a live, untranslated
    alias. While the parent's unit can still succeed (pending, running, or back-off after a
    transient failure) the child waits: returns True when it was given back to be retried
    shortly. Once the parent's unit of this run ended without a target, the child is skipped
    with ``parent_not_translated`` (and retrying the parent brings it back).
    """
    if work.target is not None or not isinstance(obj.instance, Page):
        return False
    parent = obj.instance.get_parent()
    if parent is None or parent.depth <= 1:
        return False
    locale_id = work.unit.target_locale_id
    if Page.objects.filter(
        translation_key=parent.translation_key, locale_id=locale_id, alias_of__isnull=True
    ).exists():
        return False
    parent_pending = Unit.objects.filter(
        object_key=parent.translation_key,
        target_locale_id=locale_id,
        status__in=UnitStatus.in_flight,
    ).exists()
    if not parent_pending:
        refuse_without_parent(run, parent, work)
        return False
    claims.release_unit(work.unit, token, WAIT_SECONDS)
    work.done = True
    return True


def refuse_without_parent(run: Run, parent: Page, work: UnitWork) -> None:
    """Skip a page whose parent's unit in this run failed (or was skipped) for good."""
    parent_unit = (
        Unit.objects.filter(
            run_id=run.pk,
            object_key=parent.translation_key,
            target_locale_id=work.unit.target_locale_id,
        )
        .exclude(status=UnitStatus.SUCCEEDED)
        .first()
    )
    if parent_unit is None:
        return
    reason = parent_unit.error_message or parent_unit.get_status_display()
    raise UnitSkipped(
        ErrorCode.PARENT_NOT_TRANSLATED,
        f"Its parent page {parent.title!r} was not translated into "
        f"{work.unit.target_locale}: {reason} Retry the parent; this page comes back with it.",
    )


def write_site_setting(run: Run, token: str, obj: ObjectWork, work: UnitWork) -> None:
    """A site's settings row has no draft: it is written live; a flagged translation still
    waits in the review queue (accepting it has nothing to publish)."""
    locale = work.unit.target_locale
    flags = review.flagged_texts(run, work) + review.held_texts(work)
    with transaction.atomic():
        if not claims.hold_lease(work.unit, token):
            work.done = True
            return
        check_source_unchanged(obj)
        check_unit_permitted(run, obj.instance, locale, publish=False)
        row = site_settings.target_row(obj.instance, locale)
        before = TargetSnapshot.of(row)
        held = {s: s.data for s in work.held}  # left in the source language
        values = {**work.needs.resolved, **held, **work.translated}
        site_settings.apply_translations(
            obj.instance, row, obj.segments, values, run.source_locale, locale
        )
        state = RevertState(before=before, written=row_fingerprint(row))
        review.mark_for_review(work, flags, False, row)
        finish_written(token, obj, work, str(row.pk), state)
