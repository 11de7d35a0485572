"""Filters of the runs listing: status, mode, origin (admin, command line, automatic sync),
canary, who started it (who published, for automatic runs), when."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from wagtail.admin.filters import DateRangePickerWidget, MultipleUserFilter, WagtailFilterSet
from wagtail.admin.widgets import BooleanRadioSelect

from ..models import Mode, Run, RunOrigin, RunStatus


def users_who_started_runs(request: HttpRequest) -> QuerySet[Any]:
    User = get_user_model()
    started = Run.objects.filter(created_by__isnull=False).values("created_by")
    return User.objects.filter(pk__in=started).order_by(User.USERNAME_FIELD)


class RunFilterSet(WagtailFilterSet):
    status = django_filters.MultipleChoiceFilter(
        label=_("Status"), choices=RunStatus.choices, widget=forms.CheckboxSelectMultiple
    )
    mode = django_filters.ChoiceFilter(label=_("Mode"), choices=Mode.choices)
    origin = django_filters.ChoiceFilter(label=_("Started from"), choices=RunOrigin.choices)
    canary = django_filters.BooleanFilter(
        label=_("Canary"), method="filter_canary", widget=BooleanRadioSelect
    )
    created_by = MultipleUserFilter(
        label=_("Started by (or published, for automatic runs)"),
        queryset=users_who_started_runs,
        widget=forms.CheckboxSelectMultiple,
    )
    created_at = django_filters.DateFromToRangeFilter(
        label=_("Started on"), widget=DateRangePickerWidget
    )

    class Meta:
        model = Run
        fields = ["status", "mode", "origin", "canary", "created_by", "created_at"]

    def filter_canary(
        self, queryset: QuerySet[Run], name: str, value: bool | None
    ) -> QuerySet[Run]:
        if value is None:
            return queryset
        return queryset.filter(canary_size__isnull=not value)
