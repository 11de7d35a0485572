"""The Wagtail admin of the plugin: runs listing, new-run wizard, run page, dashboard panel.

Views here are thin callers of :mod:`wagtail_bulk_translate.api`; they never write units.
"""
