"""Step 4's check after translation: a doubtful translation is stored, but waits for a person.

Each text a unit translated is checked (``review_checks.review_flags`` with the pair's glossary);
a unit with a flagged text gets a pending ``UnitReview`` naming the text and the reason, and its
target is saved as a draft even when the run publishes (``would_publish`` remembers the policy,
so accepting publishes it). A unit translated again without a flag leaves review.
"""

from __future__ import annotations

from typing import Any

from ..glossary.lookup import glossary_entries
from ..localize.target_writer import can_be_draft
from ..models import ReviewState, Run, UnitReview
from .claims import storable
from .review_checks import Flag, review_flags
from .work import UnitWork


def flagged_texts(run: Run, work: UnitWork) -> list[dict[str, Any]]:
    """The unit's translated texts that failed a check, one entry per (text, reason)."""
    if not work.translated:
        return []
    entries = glossary_entries(run.source_locale_id, work.unit.target_locale_id)
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for string, translation in work.translated.items():
        if string.data in seen:
            continue
        seen.add(string.data)
        flags = review_flags(string.data, translation, entries)
        found += [flag_entry(flag, string.data, translation) for flag in flags]
    return found


def held_texts(work: UnitWork) -> list[dict[str, Any]]:
    """The texts that could not be translated, left in the source language: one review entry
    each, with the reason and the engine's answer where there was one."""
    by_text = {string.data: held for string, held in work.held.items()}  # each text once
    return [
        {
            "code": held["code"],
            "message": storable(held["message"]),
            "term": None,
            "ratio": None,
            "source": text,
            "translation": storable(held["answer"]),
            "held": True,
        }
        for text, held in by_text.items()
    ]


def held_message(work: UnitWork) -> str:
    if not work.held:
        return ""
    first = next(iter(work.held.values()))
    texts = len({string.data for string in work.held})
    return (
        f"{texts} text(s) could not be translated and were left in the source language; the "
        f"target was saved as a draft for review. {first['message']}"
    )


def flag_entry(flag: Flag, source: str, translation: str) -> dict[str, Any]:
    return {
        "code": flag.code,
        "message": flag.message,
        "params": flag.params,
        "term": flag.term,
        "ratio": flag.ratio,
        "source": source,
        "translation": translation,
    }


def mark_for_review(
    work: UnitWork, flags: list[dict[str, Any]], publish: bool, instance: Any
) -> None:
    """Record the unit's review (in the transaction that writes its target): pending with the
    flags, or, translated again without a flag, no longer in review. A model without drafts
    was written live anyway: accepting it has nothing to publish."""
    would_publish = publish and can_be_draft(instance)
    unit_id = work.unit.pk
    if not flags:
        UnitReview.objects.filter(unit_id=unit_id, state=ReviewState.PENDING).delete()
        return
    UnitReview.objects.update_or_create(
        unit_id=unit_id,
        defaults={
            "state": ReviewState.PENDING,
            "flags": flags,
            "would_publish": would_publish,
            "decided_at": None,
        },
    )
