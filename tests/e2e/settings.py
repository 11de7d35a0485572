"""Settings of the demo site for end-to-end tests with real worker processes.

``WBT_SETTINGS`` (JSON) overrides WAGTAIL_BULK_TRANSLATE keys, e.g. short leases so a killed
worker's units come back within seconds; ``WBT_CRASH_AT`` installs a crash point.
"""

import json
import os

from sandbox.settings import *  # noqa: F403

WAGTAIL_BULK_TRANSLATE = {
    **WAGTAIL_BULK_TRANSLATE,  # noqa: F405
    **json.loads(os.environ.get("WBT_SETTINGS", "{}")),
}

if os.environ.get("WBT_CRASH_AT"):
    INSTALLED_APPS = [*INSTALLED_APPS, "tests.e2e.crash_points.apps.CrashPointsConfig"]  # noqa: F405

if os.environ.get("WBT_PLAIN_SQLITE") and DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # SQLite as `wagtail start` makes it: none of the install section's options (W007 warns).
    DATABASES["default"].pop("OPTIONS", None)  # noqa: F405
