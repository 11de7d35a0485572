from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WagtailBulkTranslateAppConfig(AppConfig):
    name = "wagtail_bulk_translate"
    label = "wagtail_bulk_translate"
    verbose_name = _("Wagtail bulk translate")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the system checks, the settings reset receiver and the tasks (schedule.py
        # enqueues them by name); lists "Translate…" only to who may use it; adds the
        # Translations side panel to the page and snippet editors; records publishes for
        # automatic sync and house style changes.
        from . import tasks  # noqa: F401
        from .admin import bulk_action_visibility
        from .admin.translations_panel import side_panel
        from .conf import celery_checks, checks, deployment_checks  # noqa: F401
        from .glossary import changes  # noqa: F401 (records house style changes)
        from .sync import receivers

        bulk_action_visibility.install()
        side_panel.install()
        receivers.connect()
