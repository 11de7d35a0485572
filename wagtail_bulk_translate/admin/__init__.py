"""The Wagtail admin of the plugin: runs listing, new-run wizard, run page, dashboard panel.

Views here are thin callers of :mod:`wagtail_bulk_translate.api`; they never write units.
"""

from django.urls import register_converter

from ..ids import IdConverter

# ``<id:pk>`` in every URL that takes a run, unit or site id: registered before any admin module
# builds its URL patterns (they are all inside this package).
register_converter(IdConverter, "id")
