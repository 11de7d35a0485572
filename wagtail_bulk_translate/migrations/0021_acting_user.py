# Runs remember whose Wagtail permissions their writes use (acting_user, or the system), and
# units refused by those permissions get their own code (not_permitted).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def acting_users(apps, schema_editor):
    """Runs from before: they act for who started them, or as the system if nobody did."""
    Run = apps.get_model("wagtail_bulk_translate", "Run")
    Run.objects.filter(created_by__isnull=False).update(acting_user=models.F("created_by"))
    Run.objects.filter(created_by__isnull=True).update(acts_as_system=True)


class Migration(migrations.Migration):

    dependencies = [
        ('wagtail_bulk_translate', '0020_deepl_glossary_entries_sent_at'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='acting_user',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='run',
            name='acts_as_system',
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name='run',
            name='error_code',
            field=models.CharField(blank=True, choices=[('unchanged', 'Unchanged since the last machine translation'), ('canary_not_sampled', 'Not in the canary sample'), ('duplicate_in_flight', 'Already being translated by another run'), ('sync_stopped', 'Synced translation was stopped'), ('manual_edits_kept', 'Target edited outside the translation pipeline'), ('target_locked', 'Target page is locked'), ('cancelled', 'The run was cancelled or stopped before this unit ran'), ('parent_not_translated', 'Its parent page failed to translate'), ('not_permitted', "The run's editor may not edit (or publish) this object in Wagtail"), ('source_changed', 'Source changed while it was being translated'), ('source_deleted', 'Source object was deleted'), ('validation_error', 'The translated object did not validate'), ('invalid_markup', 'The translator returned broken markup'), ('too_large', 'Content too large for the translator'), ('model_refused', 'The language model refused to translate this text'), ('suspicious_output', "The language model's answer did not look like a translation"), ('invalid_answer', "The language model's answer could not be read"), ('translator_error', 'The translator failed'), ('unsupported_locale', 'The translator cannot translate this locale'), ('quota_exceeded', 'Translator quota exhausted'), ('budget_exceeded', 'A spending cap was reached'), ('rate_limited', 'Translator rate limit reached'), ('auth_config', 'Translator authentication or configuration error'), ('lease_expired', 'The worker stopped responding too many times'), ('internal_error', 'Unexpected error')], max_length=32),
        ),
        migrations.AlterField(
            model_name='unit',
            name='error_code',
            field=models.CharField(blank=True, choices=[('unchanged', 'Unchanged since the last machine translation'), ('canary_not_sampled', 'Not in the canary sample'), ('duplicate_in_flight', 'Already being translated by another run'), ('sync_stopped', 'Synced translation was stopped'), ('manual_edits_kept', 'Target edited outside the translation pipeline'), ('target_locked', 'Target page is locked'), ('cancelled', 'The run was cancelled or stopped before this unit ran'), ('parent_not_translated', 'Its parent page failed to translate'), ('not_permitted', "The run's editor may not edit (or publish) this object in Wagtail"), ('source_changed', 'Source changed while it was being translated'), ('source_deleted', 'Source object was deleted'), ('validation_error', 'The translated object did not validate'), ('invalid_markup', 'The translator returned broken markup'), ('too_large', 'Content too large for the translator'), ('model_refused', 'The language model refused to translate this text'), ('suspicious_output', "The language model's answer did not look like a translation"), ('invalid_answer', "The language model's answer could not be read"), ('translator_error', 'The translator failed'), ('unsupported_locale', 'The translator cannot translate this locale'), ('quota_exceeded', 'Translator quota exhausted'), ('budget_exceeded', 'A spending cap was reached'), ('rate_limited', 'Translator rate limit reached'), ('auth_config', 'Translator authentication or configuration error'), ('lease_expired', 'The worker stopped responding too many times'), ('internal_error', 'Unexpected error')], max_length=32),
        ),
        migrations.RunPython(acting_users, migrations.RunPython.noop),
    ]
