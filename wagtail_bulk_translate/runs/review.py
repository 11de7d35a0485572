"""The review queue: units whose translation a check flagged, and what an editor does with them.

Accept publishes the target's draft when the run would have published it; dismiss leaves the
draft as it is and closes the review; re-translate starts a one-unit run of the object into
that locale (mode "refresh", so manual edits are kept, with the run's publish policy), usually
after adding a glossary term, so the glossary as it is now is used.

Every action is recorded in Wagtail's audit log, on the unit's run (``REVIEW_ACTIONS``), from
the admin and the command line alike. Each is refused (``PermissionRefused``) to a ``user`` who
could not do it by hand (see :func:`review_refusal`); ``user`` None acts as the system.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from django.db import transaction
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from wagtail.log_actions import log

from ..engine.plan import decide_publish
from ..errors import PermissionRefused, RunConfigurationError
from ..glossary.editing import save_term
from ..localize.target_writer import can_be_draft
from ..models import GlossaryTerm, Mode, ReviewState, Run, UnitReview
from ..objects import find_object
from ..scope.definition import Scope, model_label
from ..scope.permissions import Refusal, refusal, target_refusal
from .start import start_run

PREFIX = "wagtail_bulk_translate.review"
# f"{PREFIX}.{state}": the state a review is closed in names its log action.
ACCEPTED = f"{PREFIX}.{ReviewState.ACCEPTED}"
DISMISSED = f"{PREFIX}.{ReviewState.DISMISSED}"
RETRANSLATED = f"{PREFIX}.{ReviewState.RETRANSLATED}"
REVIEW_ACTIONS = {
    ACCEPTED: (_("Accept a flagged translation"), _("Accepted a translation flagged for review")),
    DISMISSED: (_("Dismiss a review"), _("Dismissed a translation's review (left as it is)")),
    RETRANSLATED: (_("Translate again"), _("Started translating a flagged translation again")),
}


def log_review(review: UnitReview, user: Any, **data: Any) -> None:
    unit = review.unit
    details = {
        "unit": unit.pk,
        "locale": unit.target_locale.language_code,
        "object": unit.object_id,
    }
    action = f"{PREFIX}.{review.state}"
    log(instance=unit.run, action=action, user=user, data={**details, **data})


def review_queue(run_id: int | None = None, state: str = ReviewState.PENDING) -> QuerySet:
    """Reviews in ``state`` (pending by default), site-wide or of one run, oldest first."""
    reviews = UnitReview.objects.select_related(
        "unit", "unit__run", "unit__target_locale", "unit__content_type"
    )
    if state:
        reviews = reviews.filter(state=state)
    if run_id is not None:
        reviews = reviews.filter(unit__run_id=run_id)
    return reviews.order_by("flagged_at", "unit_id")


def pending_review_count(run_id: int | None = None) -> int:
    return review_queue(run_id).count()


def pending_review_counts(run_ids: Iterable[int]) -> dict[int, int]:
    """Pending reviews per run, for a listing (one query)."""
    rows = (
        UnitReview.objects.filter(state=ReviewState.PENDING, unit__run_id__in=list(run_ids))
        .values("unit__run_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {row["unit__run_id"]: row["n"] for row in rows}


def review_of(unit_id: int) -> UnitReview:
    review = review_queue(state="").filter(unit_id=unit_id).first()
    if review is None:
        raise RunConfigurationError(f"Unit #{unit_id} was never flagged for review.")
    return review


RunsT = TypeVar("RunsT", bound=QuerySet)


def annotate_review_counts(runs: RunsT) -> RunsT:
    """``n_to_review`` on each run: its pending reviews (a subquery, for listings)."""
    pending = (
        UnitReview.objects.filter(state=ReviewState.PENDING, unit__run_id=OuterRef("pk"))
        .order_by()
        .values("unit__run_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return runs.annotate(n_to_review=Coalesce(Subquery(pending), 0))


def pending_review(unit_id: int) -> UnitReview:
    review = review_queue().filter(unit_id=unit_id).first()
    if review is None:
        raise RunConfigurationError(f"Unit #{unit_id} is not waiting for review.")
    return review


def target_of(review: UnitReview) -> Any:
    """The target the unit wrote (None when it is gone)."""
    unit = review.unit
    model = unit.content_type.model_class()
    if model is None or not unit.target_object_id:
        return None
    target = model._default_manager.filter(pk=unit.target_object_id).first()
    return getattr(target, "specific", target)


def close(review: UnitReview, state: str, **fields: Any) -> UnitReview:
    """Compare-and-set from pending: of two editors deciding at once, one wins."""
    updated = UnitReview.objects.filter(pk=review.pk, state=ReviewState.PENDING).update(
        state=state, decided_at=timezone.now(), **fields
    )
    if not updated:
        raise RunConfigurationError(f"Unit #{review.unit_id} was reviewed meanwhile.")
    review.refresh_from_db()
    return review


def review_refusal(review: UnitReview, action: str, user: Any) -> Refusal | None:
    """Why ``user`` may not ``action`` ("accept", "dismiss", "retranslate") this review (None:
    they may). Accept and dismiss need the right to edit the target (to publish it, for a
    review whose run published); translating again is a run, with a run's rule: edit the
    source, and edit (or publish) the target."""
    unit = review.unit
    if action != "retranslate":
        publish = action == "accept" and review.would_publish
        return target_refusal(user, target_of(review), unit.target_locale, publish=publish)
    model = unit.content_type.model_class()
    source = find_object(model, unit.object_id) if model is not None else None
    if source is None:
        return None  # the run reports a deleted source in its own words
    publish = decide_publish(unit.run, source)
    return refusal(user, source, unit.target_locale, publish=publish)


def check_review_permitted(review: UnitReview, action: str, user: Any) -> None:
    refused = review_refusal(review, action, user)
    if refused is not None:
        raise PermissionRefused(refused.message)


def accept_review(unit_id: int, user: Any = None) -> tuple[UnitReview, bool]:
    """Accept a flagged translation; returns the review and whether its target was published
    (only when the run's policy was to publish it)."""
    with transaction.atomic():
        review = pending_review(unit_id)
        check_review_permitted(review, "accept", user)
        published = False
        if review.would_publish:
            published = publish_draft(review, user)
        review = close(review, ReviewState.ACCEPTED)
        log_review(review, user, published=published)
        return review, published


def publish_draft(review: UnitReview, user: Any) -> bool:
    target = target_of(review)
    if target is None or not can_be_draft(target):
        return False
    revision = target.get_latest_revision()
    if revision is None:
        return False
    revision.publish(user=user, skip_permission_checks=True)  # the caller checked
    return True


def dismiss_review(unit_id: int, user: Any = None) -> UnitReview:
    """Close a review without publishing: the target stays as it is (a draft if it was one)."""
    with transaction.atomic():
        review = pending_review(unit_id)
        check_review_permitted(review, "dismiss", user)
        review = close(review, ReviewState.DISMISSED)
        log_review(review, user)
        return review


def retranslate_review(unit_id: int, user: Any = None) -> Run:
    """Translate the unit's object into its locale again, in a one-unit run; returns the run."""
    with transaction.atomic():
        review = pending_review(unit_id)
        check_review_permitted(review, "retranslate", user)
        unit, run = review.unit, review.unit.run
        model = unit.content_type.model_class()
        if model is None:
            raise RunConfigurationError(f"The model of unit #{unit_id} no longer exists.")
        scope = Scope(objects=[[model_label(model), unit.object_id]])
        new_run = start_run(
            scope=scope,
            source_locale=run.source_locale,
            target_locales=[unit.target_locale],
            mode=Mode.REFRESH,
            publish_policy=run.publish_policy,
            content_source=run.content_source,
            user=user,
        )
        review = close(review, ReviewState.RETRANSLATED, retranslated_by=new_run)
        log_review(review, user, run=new_run.pk)
    return new_run


def retranslate_with_term(
    unit_id: int,
    source_term: str,
    target_term: str = "",
    *,
    never_translate: bool = False,
    case_sensitive: bool = False,
    user: Any = None,
) -> tuple[GlossaryTerm, Run]:
    """Add the term to the glossary for the unit's language pair, then translate it again: the
    one flow of a translation that got a term wrong. Both, or neither."""
    with transaction.atomic():
        unit = pending_review(unit_id).unit
        term = save_term(
            unit.run.source_locale_id,
            unit.target_locale_id,
            source_term,
            target_term,
            never_translate=never_translate,
            case_sensitive=case_sensitive,
            user=user,
        )
        return term, retranslate_review(unit_id, user)


def review_row(review: UnitReview) -> dict[str, Any]:
    """A review as plain values (the command line's --json, the admin's table)."""
    unit = review.unit
    return {
        "unit": unit.pk,
        "run": unit.run_id,
        "model": f"{unit.content_type.app_label}.{unit.content_type.model}",
        "object_id": unit.object_id,
        "target_object_id": unit.target_object_id,
        "locale": unit.target_locale.language_code,
        "state": review.state,
        "would_publish": review.would_publish,
        "flagged_at": review.flagged_at.isoformat(),
        "flags": review.flags,
    }
