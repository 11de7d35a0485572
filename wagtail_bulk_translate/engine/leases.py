"""Row leases: a token and an expiry on a row say which chain of tasks owns it.

The coordinator of a run and the janitor each run as a chain of self-re-queuing tasks; a
duplicate delivery must exit instead of doing the work twice. The chain passes its token to its
continuation, so it renews its own lease while any other token waits for the expiry.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.db import models
from django.db.models import Q
from django.db.models.functions import Now


def take_lease(
    rows: models.QuerySet,
    token: str | None,
    seconds: float,
    *,
    token_field: str,
    expiry_field: str,
) -> str | None:
    """Take the lease on ``rows`` (or renew it with our own token); None if another holds it."""
    free = Q(**{f"{token_field}__isnull": True}) | Q(**{f"{expiry_field}__lt": Now()})
    mine = Q(**{token_field: token}) if token else Q(pk__in=[])
    new_token = token or str(uuid.uuid4())
    updated = rows.filter(free | mine).update(
        **{token_field: new_token, expiry_field: Now() + timedelta(seconds=seconds)}
    )
    return new_token if updated else None


def release_lease(
    rows: models.QuerySet, token: str, *, token_field: str, expiry_field: str
) -> None:
    rows.filter(**{token_field: token}).update(**{token_field: None, expiry_field: None})
