# Automatic runs remember the sites they serve, so pausing a site pauses its runs.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('wagtail_bulk_translate', '0018_budget_caps'),
    ]

    operations = [
        migrations.AddField(
            model_name='syncconfiguration',
            name='runs',
            field=models.ManyToManyField(blank=True, editable=False, related_name='sync_configurations', to='wagtail_bulk_translate.run'),
        ),
    ]
