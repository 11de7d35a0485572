"""Who did something, for rows and the audit log: the command line and tasks have nobody."""

from __future__ import annotations

from typing import Any


def signed_in_user(user: Any) -> Any:
    """``user`` if it is a signed-in user, else None (anonymous, or no user at all)."""
    return user if getattr(user, "is_authenticated", False) else None
