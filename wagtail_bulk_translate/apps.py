from django.apps import AppConfig


class WagtailBulkTranslateAppConfig(AppConfig):
    name = "wagtail_bulk_translate"
    label = "wagtail_bulk_translate"
    verbose_name = "Wagtail bulk translate"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks, conf  # noqa: F401  (registers checks and the settings reset receiver)
