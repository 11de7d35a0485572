# Budgets: requests in flight reserve their spend; the ledger is summed by day and month.

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('wagtail_bulk_translate', '0016_glossary_changes'),
    ]

    operations = [
        migrations.CreateModel(
            name='BudgetReservation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('token', models.UUIDField(unique=True)),
                ('characters', models.PositiveIntegerField(default=0)),
                ('cost', models.DecimalField(decimal_places=6, default=0, max_digits=14)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('expires_at', models.DateTimeField()),
            ],
        ),
        migrations.AddField(
            model_name='run',
            name='budget_needs',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name='senttext',
            index=models.Index(fields=['created_at'], name='wbt_sent_text_time_idx'),
        ),
        migrations.AddIndex(
            model_name='spentrequest',
            index=models.Index(fields=['created_at'], name='wbt_spent_request_time_idx'),
        ),
        migrations.AddField(
            model_name='budgetreservation',
            name='run',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='wagtail_bulk_translate.run'),
        ),
    ]
