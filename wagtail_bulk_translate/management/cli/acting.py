"""``--as-user``: whose Wagtail permissions a command's runs and review actions use.

Without it a command acts as the system, with every right (the command line is trusted like
the shell that runs it); with it, exactly as that editor would in the admin.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

EXIT_BAD_ARGUMENTS = 2


def add_as_user_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--as-user",
        metavar="USERNAME",
        help="Act with this user's Wagtail permissions: what they may not edit or publish is "
        "refused, object by object, with the reason. Without it: as the system, every right.",
    )


def acting_user(options: dict[str, Any]) -> Any:
    """The user named by ``--as-user`` (None: the system); a clear error for a bad name."""
    username = options.get("as_user")
    if username is None:
        return None
    model = get_user_model()
    user = model._default_manager.filter(**{model.USERNAME_FIELD: username}).first()
    if user is None:
        raise CommandError(
            f"--as-user: there is no user {username!r}.", returncode=EXIT_BAD_ARGUMENTS
        )
    if not user.is_active:
        raise CommandError(
            f"--as-user: {username!r} is inactive, and an inactive user may do nothing.",
            returncode=EXIT_BAD_ARGUMENTS,
        )
    return user
