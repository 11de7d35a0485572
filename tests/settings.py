"""Test settings: the demo site's, on an in-memory SQLite database unless DATABASE_URL is set."""

import os
import tempfile

from sandbox.settings import *  # noqa: F403

if not os.environ.get("DATABASE_URL"):
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
WAGTAILSEARCH_BACKENDS = {"default": {"BACKEND": "wagtail.search.backends.database"}}
LOGGING = {"version": 1, "disable_existing_loggers": False}

# The janitor chain re-queues itself while a run is active; tests that drain the queue by hand
# would run it in a loop. Janitor tests enable it explicitly.
WAGTAIL_BULK_TRANSLATE = {**WAGTAIL_BULK_TRANSLATE, "JANITOR_INTERVAL_SECONDS": None}  # noqa: F405

# The demo's file cache, in a directory of this test process (removed when it exits): a cache
# kept beside the demo's database would outlive the test database.
CACHE_DIRECTORY = tempfile.TemporaryDirectory(prefix="wbt-test-cache-")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": CACHE_DIRECTORY.name,
    }
}
