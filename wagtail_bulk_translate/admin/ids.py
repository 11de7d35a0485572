"""Ids in the admin's query strings and forms: not an id (``²``, ``-1``, 2**64) is a 404."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _

from ..ids import parse_id


def id_or_404(value: str) -> int:
    number = parse_id(value)
    if number is None:
        raise Http404(_("%(value)r is not an id.") % {"value": value})
    return number
