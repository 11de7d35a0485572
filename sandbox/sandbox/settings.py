"""Settings of the demo site, also the base of the test settings.

Embedded defaults: SQLite (``SQLITE_PATH``, default ``sandbox/db.sqlite3``), the django-tasks
database backend, and the pseudo translator. ``DATABASE_URL`` switches to PostgreSQL, and
``TASK_BACKEND=rq`` to the RQ backend on Redis (``REDIS_URL``).
"""

import hashlib
import os
import tempfile
from pathlib import Path

import dj_database_url
import django

SANDBOX_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get("SECRET_KEY", "demo-only-not-secret")
DEBUG = os.environ.get("DEBUG", "1") == "1"
ALLOWED_HOSTS = ["*"]

INSTALLED_APPS = [
    "demo",
    "wagtail_bulk_translate",
    "wagtail_localize",
    "wagtail_localize.locales",
    "wagtail.contrib.settings",
    "wagtail.contrib.redirects",
    "wagtail.embeds",
    "wagtail.sites",
    "wagtail.users",
    "wagtail.snippets",
    "wagtail.documents",
    "wagtail.images",
    "wagtail.search",
    "wagtail.admin",
    "wagtail",
    "modelcluster",
    "taggit",
    "django_tasks_db",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
]
if django.VERSION < (6, 0):  # the django-tasks backport provides the tasks API before Django 6
    INSTALLED_APPS.append("django_tasks")
if os.environ.get("DATABASE_URL", "").startswith(("postgres", "pgsql")):
    # Wagtail's search index uses PostgreSQL's full-text search there.
    INSTALLED_APPS.append("django.contrib.postgres")

MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "wagtail.contrib.redirects.middleware.RedirectMiddleware",
]

ROOT_URLCONF = "sandbox.urls"
WSGI_APPLICATION = "sandbox.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "wagtail.contrib.settings.context_processors.settings",
            ],
        },
    },
]


def database_from_environment() -> dict:
    if os.environ.get("DATABASE_URL"):
        # A connection the server dropped (a restart) is replaced at the next request or task.
        return dj_database_url.parse(
            os.environ["DATABASE_URL"], conn_max_age=0, conn_health_checks=True
        )
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("SQLITE_PATH", str(SANDBOX_DIR / "db.sqlite3")),
        "OPTIONS": {
            # Several worker processes write at once: take the write lock when a transaction
            # starts (no deadlocking upgrades), let readers run beside the writer, and wait.
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }


DATABASES = {"default": database_from_environment()}


def shared_cache_directory(database: dict) -> str:
    """One cache directory per database, shared by the web server and the workers.

    Wagtail caches its site root paths in Django's cache and clears them when a page that is a
    locale's home is saved; that happens in a worker process. With Django's default per-process
    cache the web server would keep the old paths and answer 500 on the new locale's pages.
    """
    identity = f"{database['ENGINE']}:{database.get('HOST', '')}:{database['NAME']}"
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), f"wagtail-bulk-translate-cache-{digest}")


CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": shared_cache_directory(DATABASES["default"]),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en"
LANGUAGES = WAGTAIL_CONTENT_LANGUAGES = [
    ("en", "English"),
    ("fr", "French"),
    ("de", "German"),
    ("es", "Spanish"),
]
USE_I18N = True
WAGTAIL_I18N_ENABLED = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = SANDBOX_DIR / "static"
MEDIA_URL = "/media/"
MEDIA_ROOT = SANDBOX_DIR / "media"

WAGTAIL_SITE_NAME = "Bulk translate demo"
# `make serve PORT=…` sets PORT: links in notification e-mails follow it.
WAGTAILADMIN_BASE_URL = f"http://localhost:{os.environ.get('PORT', '8000')}"
WAGTAILSEARCH_BACKENDS = {"default": {"BACKEND": "wagtail.search.backends.database"}}

# The task backend, chosen by TASK_BACKEND: "db" (default) keeps tasks in the database and runs
# them with `manage.py db_worker`; "rq" keeps them in Redis (REDIS_URL) and runs them with
# `manage.py rqworker --job-class django_tasks_rq.Job --with-scheduler bulk_translate default`.
task_queues = ["default", "bulk_translate"]
task_backend = os.environ.get("TASK_BACKEND", "db")
if task_backend == "db":
    TASKS = {
        "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": task_queues},
    }
elif task_backend == "rq":
    INSTALLED_APPS += ["django_rq", "django_tasks_rq"]
    REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    RQ_QUEUES = {name: {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 600} for name in task_queues}
    # Workers run django-tasks' Job class even without --job-class.
    RQ = {"JOB_CLASS": "django_tasks_rq.Job"}
    TASKS = {
        "default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": task_queues},
    }
elif task_backend == "celery":
    # Celery workers on RabbitMQ (CELERY_BROKER_URL): `celery -A sandbox worker -Q
    # celery,bulk_translate` (Django's "default" queue is Celery's own default, "celery").
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "amqp://guest:guest@127.0.0.1:5672//")
    # A task is acknowledged once it ran, and a worker reserves one at a time: a killed worker's
    # task goes back to the queue, not lost with the worker's prefetch.
    CELERY_TASK_ACKS_LATE = True
    CELERY_TASK_REJECT_ON_WORKER_LOST = True
    CELERY_WORKER_PREFETCH_MULTIPLIER = 1
    TASKS = {
        "default": {
            "BACKEND": "django_tasks_celery.CeleryBackend",
            "QUEUES": task_queues,
            "OPTIONS": {"CELERY_APP": "sandbox.celery.app"},
        },
    }
else:
    raise ValueError(f"TASK_BACKEND must be 'db', 'rq' or 'celery', not {task_backend!r}")

WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {
    "CLASS": "wagtail_bulk_translate.translators.pseudo.PseudoTranslator",
}

# A language model instead of pseudo-localization: LLM_MODEL (e.g. gpt-4o-mini, or llama3.1 on
# Ollama), LLM_BASE_URL (empty: OpenAI; http://localhost:11434/v1: Ollama) and OPENAI_API_KEY
# (read by the translator; any value for a local server).
if os.environ.get("LLM_MODEL"):
    WAGTAILLOCALIZE_MACHINE_TRANSLATOR = {
        "CLASS": "wagtail_bulk_translate.translators.llm.LLMTranslator",
        "OPTIONS": {
            "MODEL": os.environ["LLM_MODEL"],
            "BASE_URL": os.environ.get("LLM_BASE_URL") or None,
            "RESPONSE_FORMAT": os.environ.get("LLM_RESPONSE_FORMAT", "json_schema"),
            "INSTRUCTIONS": "This is the website of a garden centre; keep a friendly tone.",
            "GLOSSARY": {"KEEP": ["Wagtail"]},
            "PRICES": {
                "gpt-4o-mini": {"input": 0.15, "output": 0.60},
                "gpt-4.1-mini": {"input": 0.40, "output": 1.60},
            },
        },
    }

WAGTAIL_BULK_TRANSLATE = {
    # Sites that each serve one locale (site settings are translated between their rows).
    "SITE_LOCALES": {"fr.localhost": "fr", "de.localhost": "de", "es.localhost": "es"},
    # Never sent to the translator: a tracking id, and people's names.
    "EXCLUDE_FIELDS": {"demo.SocialLinks": ["analytics_id"], "demo.Testimonial": ["author"]},
    "UNITS_PER_CLAIM": 25,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "wagtail_bulk_translate": {"handlers": ["console"], "level": "WARNING"},
    },
}
