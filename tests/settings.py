"""Test settings: the demo site's, on an in-memory SQLite database unless DATABASE_URL is set."""

import os

from sandbox.settings import *  # noqa: F403

if not os.environ.get("DATABASE_URL"):
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
WAGTAILSEARCH_BACKENDS = {"default": {"BACKEND": "wagtail.search.backends.database"}}
LOGGING = {"version": 1, "disable_existing_loggers": False}
