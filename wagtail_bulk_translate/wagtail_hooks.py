"""Wagtail registrations only: the code they register lives in ``wagtail_bulk_translate.admin``."""

from typing import Any

from django.urls import URLPattern, URLResolver
from wagtail import hooks

from .admin.budgets.permissions import register_budget_permission_policy
from .admin.budgets.viewsets import BudgetViewSet
from .admin.bulk_actions import TranslatePagesBulkAction, TranslateSnippetsBulkAction
from .admin.coverage_report import CoverageMenuItem, coverage_menu_item, coverage_urls
from .admin.glossary.log_actions import register_glossary_log_actions
from .admin.glossary.permissions import register_glossary_permission_policies
from .admin.glossary.viewsets import GlossaryViewSetGroup
from .admin.log_actions import register_run_log_actions
from .admin.panels import construct_homepage_panels
from .admin.permissions import register_run_permission_policy
from .admin.sync.log_actions import register_sync_log_actions
from .admin.sync.permissions import register_sync_permission_policy
from .admin.sync.viewsets import SyncViewSet
from .admin.translations_panel.views import translate_now_urls
from .admin.views.review import (
    ReviewMenuItem,
    register_review_log_actions,
    review_menu_item,
    review_urls,
)
from .admin.viewsets import RunViewSet

# Before the viewset is registered, so Wagtail never builds a fallback policy for runs.
register_run_permission_policy()
register_glossary_permission_policies()
register_sync_permission_policy()
register_budget_permission_policy()


@hooks.register("register_admin_viewset")
def register_runs_viewset() -> RunViewSet:
    return RunViewSet()


@hooks.register("register_admin_viewset")
def register_glossary_viewsets() -> GlossaryViewSetGroup:
    return GlossaryViewSetGroup()


@hooks.register("register_admin_viewset")
def register_sync_viewset() -> SyncViewSet:
    return SyncViewSet()


@hooks.register("register_admin_viewset")
def register_budget_viewset() -> BudgetViewSet:
    return BudgetViewSet()


@hooks.register("register_log_actions")
def register_log_actions(actions: Any) -> None:
    register_run_log_actions(actions)
    register_glossary_log_actions(actions)
    register_review_log_actions(actions)
    register_sync_log_actions(actions)


hooks.register("construct_homepage_panels", construct_homepage_panels)


# "Translate…" in the page explorer and in translatable snippet listings.
hooks.register("register_bulk_action", TranslatePagesBulkAction)
hooks.register("register_bulk_action", TranslateSnippetsBulkAction)


@hooks.register("register_admin_urls")
def register_coverage_report_urls() -> list[URLPattern]:
    return coverage_urls()


@hooks.register("register_reports_menu_item")
def register_coverage_report_menu_item() -> CoverageMenuItem:
    return coverage_menu_item()


@hooks.register("register_admin_urls")
def register_review_urls() -> list[URLResolver]:
    return review_urls()


@hooks.register("register_reports_menu_item")
def register_review_menu_item() -> ReviewMenuItem:
    return review_menu_item()


@hooks.register("register_admin_urls")
def register_translate_now_urls() -> list[URLPattern]:
    return translate_now_urls()
