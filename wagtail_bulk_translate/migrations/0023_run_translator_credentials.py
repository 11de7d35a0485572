"""Runs store a digest of their translator's credentials, and no credential any more; glossary
CSV imports are recorded (they run in the background).

Runs started before this release may hold a key in ``translator_options`` (a header or query
parameter of ``DEFAULT_HEADERS`` / ``DEFAULT_QUERY``, e.g. Azure's ``api-key``) and print it in
``translator_change``. Both are scrubbed here. The rules are copied from
``translators/secrets.py`` as they were when this migration was written, so that later changes
to that module cannot change what this migration did.
"""

import re
from urllib.parse import parse_qsl, urlsplit

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

CREDENTIAL_MARKERS = (
    "key",
    "secret",
    "token",
    "password",
    "passwd",
    "credential",
    "auth",
    "cookie",
    "signature",
    "session",
)
# A quoted dict key in a printed change: {'api-key': '…'}.
QUOTED_NAME = re.compile(r"""['"]([^'"]{1,100})['"]\s*:""")
CHANGE_PREFIX = re.compile(r"^(.*? UTC: )(.*)$", re.DOTALL)


def looks_like_credential(name):
    normalised = re.sub(r"[^a-z]", "", str(name).lower())
    return any(marker in normalised for marker in CREDENTIAL_MARKERS)


def url_holds_credentials(value):
    if not isinstance(value, str) or "://" not in value:
        return False
    try:
        parts = urlsplit(value)
        password = parts.password
    except ValueError:
        return True
    return bool(password) or any(looks_like_credential(k) for k, _v in parse_qsl(parts.query))


def public_options(options):
    public = {}
    for name, value in (options or {}).items():
        if looks_like_credential(name) or url_holds_credentials(value):
            continue
        if isinstance(value, dict):
            value = {
                k: v
                for k, v in value.items()
                if not (looks_like_credential(k) or url_holds_credentials(v))
            }
        public[name] = value
    return public


def part_holds_credentials(part):
    name = part.split(" ", 1)[0]
    quoted = QUOTED_NAME.findall(part)
    return (
        looks_like_credential(name)
        or any(looks_like_credential(k) for k in quoted)
        or ("://" in part and "@" in part)
    )


def scrubbed_change(text):
    match = CHANGE_PREFIX.match(text or "")
    if match is None:
        return text
    prefix, body = match.groups()
    parts, hidden = [], False
    for part in body.split("; "):
        if part_holds_credentials(part):
            hidden = True
        else:
            parts.append(part)
    if not hidden:
        return text
    return prefix + "; ".join([*parts, "credentials changed"])


def scrub_runs(apps, schema_editor):
    Run = apps.get_model("wagtail_bulk_translate", "Run")
    for run in Run.objects.only("pk", "translator_options", "translator_change").iterator():
        options = public_options(run.translator_options)
        change = scrubbed_change(run.translator_change)
        if options != run.translator_options or change != run.translator_change:
            Run.objects.filter(pk=run.pk).update(
                translator_options=options, translator_change=change
            )


class Migration(migrations.Migration):
    dependencies = [
        ("wagtail_bulk_translate", "0022_run_task_failures_held_for_review"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="translator_credentials_digest",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(scrub_runs, migrations.RunPython.noop),
        migrations.CreateModel(
            name="GlossaryImport",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("file_name", models.CharField(blank=True, max_length=255)),
                ("content", models.TextField(blank=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("running", "Importing"),
                            ("succeeded", "Imported"),
                            ("failed", "Refused"),
                        ],
                        default="queued",
                        max_length=16,
                    ),
                ),
                ("rows", models.PositiveIntegerField(default=0)),
                ("terms_created", models.PositiveIntegerField(default=0)),
                ("terms_updated", models.PositiveIntegerField(default=0)),
                ("translations_written", models.PositiveIntegerField(default=0)),
                ("errors", models.JSONField(blank=True, default=list)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "glossary import",
                "verbose_name_plural": "glossary imports",
            },
        ),
    ]
