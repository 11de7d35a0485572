""" "Translate…" bulk actions in the page explorer and in translatable snippet listings.

Three steps on Wagtail's bulk action URL, like the new-run wizard: the run options (GET), the
preflight of exactly the selection (POST), then starting the run (POST ``action=start``, with
the signed estimate the preflight showed), which redirects to the run's page. Items the user
cannot edit are listed as left out and never translated; a subtree holding pages the user
cannot edit is refused before the run starts, naming them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.db import models
from django.db.models import Model  # `models` is shadowed in TranslateSnippetsBulkAction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.functional import cached_property, classproperty
from django.utils.translation import gettext_lazy as _
from wagtail.admin import messages
from wagtail.admin.views.pages.bulk_actions.page_bulk_action import PageBulkAction
from wagtail.models import Locale, Page, TranslatableMixin
from wagtail.snippets.bulk_actions.snippet_bulk_action import SnippetBulkAction
from wagtail.snippets.models import get_snippet_models

from .. import api
from ..models import Run
from ..objects import valid_pk
from .forms import RunOptionsForm, choice_field, field_choices
from .permissions import ScopeNotAllowed, can_manage_runs, check_user_can_translate
from .views.mixins import ManageRunsRequiredMixin
from .views.new_run import (
    SignedEstimate,
    may_start,
    preflight_rows,
    read_estimate,
    request_digest,
    run_title,
    sign_estimate,
)

if TYPE_CHECKING:
    # TranslateBulkAction always goes before a Wagtail bulk action: type-check it as one.
    from wagtail.admin.views.bulk_action import BulkAction as _BulkActionBase
else:
    _BulkActionBase = object


class TranslatePagesForm(RunOptionsForm):
    include_descendants = forms.BooleanField(
        label=_("Include descendants"),
        required=False,
        initial=True,
        help_text=_(
            "Translate every page below the selected ones too. Untick to translate only the "
            "selected pages (their untranslated parents are translated first either way)."
        ),
    )


class TranslateBulkAction(ManageRunsRequiredMixin, _BulkActionBase):
    """What the page and snippet "Translate…" actions share; mixed in before Wagtail's class."""

    display_name = _("Translate…")
    action_type = "translate"
    action_priority = 60
    template_name = "wagtail_bulk_translate/bulk_actions/confirm_translate.html"
    form_class = RunOptionsForm
    no_access_template = "wagtailadmin/bulk_actions/confirmation/list_items_with_no_access.html"
    # Set by form_valid (scope, estimate) and execute_action (run).
    scope: dict[str, Any]
    estimate: SignedEstimate | None
    run: Run

    @classmethod
    def is_shown_to(cls, user: Any) -> bool:
        """Listed in listings' bulk actions only for who may use it (bulk_action_visibility)."""
        return user is not None and can_manage_runs(user)

    @classmethod
    def get_queryset(cls, model: type[models.Model], object_ids: list[str]) -> list[models.Model]:
        """The selected objects; ids that are not valid keys are ignored, not a crash."""
        valid = [pk for pk in object_ids if valid_pk(model, pk)]
        objects = list(model._default_manager.filter(pk__in=valid))
        if not objects:
            raise Http404(_("None of the selected items exists any more."))
        return objects

    def get_actionable_objects(self) -> tuple[list[Any], dict[str, Any]]:
        # Read once per request: the form, the preflight and the start all use the selection.
        if not hasattr(self, "_selection"):
            self._selection = super().get_actionable_objects()
        return self._selection

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "source_locale": self.source_locale}

    def get_form(self, form_class: type[RunOptionsForm] | None = None) -> RunOptionsForm:
        form = super().get_form(form_class)
        if self.source_locale is not None:
            # The selection fixes the source: offering it as a target would only be an error.
            code = self.source_locale.language_code
            choices = field_choices(form, "target_locales")
            choice_field(form, "target_locales").choices = [
                choice for choice in choices if choice[0] != code
            ]
        return form

    @cached_property
    def source_locale(self) -> Locale | None:
        """The locale of the selected items; None if they are in several locales."""
        objects, _rest = self.get_actionable_objects()
        locale_ids = {obj.locale_id for obj in objects}
        if len(locale_ids) != 1:
            return None
        return Locale.objects.get(pk=locale_ids.pop())

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        objects, _rest = self.get_actionable_objects()
        context["mixed_locales"] = bool(objects) and self.source_locale is None
        context["source_locale"] = self.source_locale
        context["no_access_template"] = self.no_access_template
        return context

    def form_valid(self, form: RunOptionsForm) -> HttpResponse:
        objects, _rest = self.get_actionable_objects()
        if not objects or self.source_locale is None:
            return self.form_invalid(form)
        action = self.request.POST.get("action", "preflight")
        if action == "edit":
            return self.form_invalid(form)  # the options again, as the editor left them
        self.scope = self.build_scope(objects, form.cleaned_data)
        digest = request_digest(
            api.Scope.from_json(self.scope), self.source_locale.language_code, form.run_options()
        )
        try:
            check_user_can_translate(self.request.user, self.scope, self.source_locale)
            if action == "start":
                self.estimate = read_estimate(self.request.POST.get("estimate", ""), digest)
                if self.estimate is not None and may_start(form, self.estimate):
                    return self.start(form)
            return self.render_preflight(form, digest)
        except (api.BulkTranslateError, ScopeNotAllowed) as err:
            form.add_error(None, str(err))
            return self.form_invalid(form)

    def render_preflight(self, form: RunOptionsForm, digest: str) -> HttpResponse:
        options = form.run_options()
        estimate = api.preflight(
            self.scope,
            self.source_locale,
            options["target_locales"],
            mode=options["mode"],
            user=self.request.user,
            translator=options["translator"],
            allowed_translators=options["allowed_translators"],
        )
        context = self.get_context_data(
            form=form,
            estimate=estimate,
            signed_estimate=sign_estimate(digest, estimate),
            needs_cost_confirmation=form.needs_cost_confirmation(estimate),
            rows=preflight_rows(estimate, form.run_options()),
        )
        return self.render_to_response(context)

    def start(self, form: RunOptionsForm) -> HttpResponse:
        # Wagtail's form_valid runs the before/after bulk action hooks around execute_action,
        # in one transaction; its redirect to the listing is replaced by the run's page.
        super().form_valid(form)
        messages.success(self.request, _("%(run)s started.") % {"run": run_title(self.run)})
        return redirect(reverse("wagtail_bulk_translate:inspect", args=[self.run.pk]))

    def get_execution_context(self) -> dict[str, Any]:
        return {**super().get_execution_context(), "action": self}

    @classmethod
    def execute_action(
        cls, objects: list[Any], action: TranslateBulkAction | None = None, **kwargs: Any
    ) -> tuple[int, int]:
        # Wagtail passes get_execution_context(): the action, once form_valid has read the
        # estimate (start() is only reached with one).
        assert action is not None and action.estimate is not None
        estimate: SignedEstimate = action.estimate
        run = api.start_run(
            scope=action.scope,
            source_locale=action.source_locale,
            user=action.request.user,
            estimated_characters=estimate.total_characters,
            **action.cleaned_form.run_options(),
        )
        action.run = run
        return len(objects), 0

    def build_scope(self, objects: list[Any], data: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


class TranslatePagesBulkAction(TranslateBulkAction, PageBulkAction):
    aria_label = _("Translate the selected pages")
    form_class = TranslatePagesForm
    no_access_template = "wagtailadmin/pages/bulk_actions/list_items_with_no_access.html"

    def check_perm(self, page: Page) -> bool:
        return page.permissions_for_user(self.request.user).can_edit()

    def object_context(self, page: Page) -> dict[str, Any]:
        context = super().object_context(page)
        return {**context, "edit_url": reverse("wagtailadmin_pages:edit", args=[page.pk])}

    def build_scope(self, objects: list[Page], data: dict[str, Any]) -> dict[str, Any]:
        descendants = bool(data.get("include_descendants"))
        return {"pages": [{"id": page.pk, "descendants": descendants} for page in objects]}


class TranslateSnippetsBulkAction(TranslateBulkAction, SnippetBulkAction):
    aria_label = _("Translate the selected snippets")
    no_access_template = "wagtailsnippets/bulk_actions/list_items_with_no_access.html"

    @classproperty
    def models(cls) -> list[type[models.Model]]:
        return [model for model in get_snippet_models() if issubclass(model, TranslatableMixin)]

    def check_perm(self, snippet: Model) -> bool:
        # The viewset's policy: SnippetBulkAction.permission_policy is Wagtail 8 only.
        policy = self.model.snippet_viewset.permission_policy
        return policy.user_has_permission_for_instance(self.request.user, "change", snippet)

    def build_scope(self, objects: list[Model], data: dict[str, Any]) -> dict[str, Any]:
        label = f"{self.model._meta.app_label}.{self.model.__name__}"
        return {"objects": [[label, str(obj.pk)] for obj in objects]}
