"""Texts in flight: one worker pays for a text in a locale, the others wait for its result.

Translation memory makes a text translated once reusable everywhere, but two workers handling
two pages that share a sentence at the same moment would both miss the memory and both pay.
Before calling the translator a worker reserves its texts (a unique row per locale and text);
units needing a text another worker reserved are given back for a moment and find the text in
memory when they return. Reservations end when the translations are stored, or expire with
the lease if their worker died.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.db.models import Q
from django.db.models.functions import Now

from ..conf import get_settings
from ..models import TextReservation


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def reserve(locale_id: int, texts: list[str], token: str) -> set[str]:
    """Reserve ``texts`` for this worker; returns those now reserved by someone else."""
    if not texts:
        return set()
    hashes = {text_hash(t): t for t in texts}
    expires = Now() + timedelta(seconds=get_settings().LEASE_SECONDS)
    # Take over reservations whose worker died, then claim the free ones.
    TextReservation.objects.filter(
        locale_id=locale_id, text_hash__in=hashes, expires_at__lt=Now()
    ).update(token=token, expires_at=expires)
    TextReservation.objects.bulk_create(
        [
            TextReservation(locale_id=locale_id, text_hash=h, token=token, expires_at=expires)
            for h in hashes
        ],
        ignore_conflicts=True,
    )
    taken = TextReservation.objects.filter(locale_id=locale_id, text_hash__in=hashes).filter(
        ~Q(token=token)
    )
    return {hashes[h] for h in taken.values_list("text_hash", flat=True)}


def release(token: str) -> None:
    TextReservation.objects.filter(token=token).delete()


def held_elsewhere(locale_id: int, texts: set[str]) -> bool:
    """Whether a live reservation (not this worker's: its own are released) holds any text."""
    hashes = [text_hash(t) for t in texts]
    return TextReservation.objects.filter(
        locale_id=locale_id, text_hash__in=hashes, expires_at__gte=Now()
    ).exists()
