# Budgets in the admin: caps that replace the settings' caps of the same period and origin.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('wagtail_bulk_translate', '0017_budgets'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='BudgetCap',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('period', models.CharField(choices=[('run', 'Per run'), ('daily', 'Daily (calendar day)'), ('monthly', 'Monthly (calendar month)')], max_length=8, verbose_name='period')),
                ('origin', models.CharField(blank=True, choices=[('admin', 'An editor in the admin'), ('command', 'The command line'), ('automatic', 'Automatic sync')], help_text='Only the runs started this way count against the cap; empty: all runs.', max_length=16, verbose_name='counts')),
                ('characters', models.PositiveBigIntegerField(blank=True, help_text='Characters sent to the translator, as the preflight counts them.', null=True, verbose_name='characters')),
                ('cost', models.DecimalField(blank=True, decimal_places=2, help_text="In the settings' CURRENCY; only translators that report money count it.", max_digits=14, null=True, verbose_name='cost')),
                ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated')),
                ('updated_by', models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'budget cap',
                'verbose_name_plural': 'budget caps',
                'ordering': ['origin', 'period'],
                'constraints': [models.UniqueConstraint(fields=('period', 'origin'), name='wbt_budget_cap_unique')],
            },
        ),
    ]
