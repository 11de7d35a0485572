"""Settings of the live site the browser tests drive: the end-to-end settings, offline avatars."""

from tests.e2e.settings import *  # noqa: F403

# Gravatar cannot be reached from CI: Wagtail's own default avatar instead of a broken image.
WAGTAIL_GRAVATAR_PROVIDER_URL = None
