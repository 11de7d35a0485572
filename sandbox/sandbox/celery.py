"""The sandbox's Celery app (TASK_BACKEND=celery): `celery -A sandbox worker`.

Run it with `-Q celery,bulk_translate` (Django's "default" queue is Celery's own "celery").

Settings come from Django's (``CELERY_*``); the apps' ``tasks`` modules are imported so the
worker knows the django-tasks tasks (django-tasks-celery registers them as they are defined).
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sandbox.settings")

app = Celery("sandbox")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
