"""URLs of the "Translate now" view, shared by the side panel and the view's own routes."""

from __future__ import annotations

from urllib.parse import urlencode

from django.db import models
from django.urls import reverse
from wagtail.models import Locale

URL_NAME = "wagtail_bulk_translate_translate_now"


def translate_now_url(instance: models.Model, locale: Locale | None = None) -> str:
    opts = instance._meta
    url = reverse(URL_NAME, args=[opts.app_label, opts.model_name, str(instance.pk)])
    return f"{url}?{urlencode({'locale': locale.language_code})}" if locale else url
