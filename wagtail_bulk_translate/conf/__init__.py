"""The plugin's configuration: the ``WAGTAIL_BULK_TRANSLATE`` settings, their rules and checks.

``settings.py`` declares every key, ``rules.py`` holds the type and range rules they are
validated with, and ``checks.py`` the system checks (registered by the app config).
"""

from .settings import (
    SETTING_NAME,
    SLUG_POLICIES,
    BulkTranslateSettings,
    KeySpec,
    get_settings,
    key_specs,
    reference_table,
    setting_problems,
    unknown_setting_keys,
    user_setting,
)

__all__ = [
    "SETTING_NAME",
    "SLUG_POLICIES",
    "BulkTranslateSettings",
    "KeySpec",
    "get_settings",
    "key_specs",
    "reference_table",
    "setting_problems",
    "unknown_setting_keys",
    "user_setting",
]
