""" "Translate now": a run of one object into one locale, from the editor's Translations panel.

GET shows the locale's state and asks drafts or publish; POST starts the run (changed content
only, manual edits kept) through ``api.start_run`` and redirects to the run's page. Refused,
with the reason on the form and nothing created: a locale that does not exist or is the
object's own, an object or target the user could not edit (or publish, when publishing) by
hand. Users without the plugin's permission get a 404, as for an object that does not exist:
the answer must not tell them which objects exist.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.apps import apps
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.generic import FormView
from wagtail.admin import messages
from wagtail.admin.admin_url_finder import AdminURLFinder
from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin
from wagtail.models import Locale, TranslatableMixin

from ... import api
from ...models import Mode, PublishPolicy
from ...objects import find_object
from ...scope.definition import model_label
from ..columns import run_title
from ..permissions import (
    ScopeNotAllowed,
    can_manage_runs,
    check_user_can_translate,
)
from ..views.mixins import ManageRunsRequiredMixin
from .links import URL_NAME

MISSING = gettext_lazy("This object does not exist any more.")


class TranslateNowForm(forms.Form):
    locale = forms.CharField(widget=forms.HiddenInput)
    publish_policy = forms.ChoiceField(
        label=gettext_lazy("The translation"),
        choices=[
            (PublishPolicy.DRAFT, gettext_lazy("Save as a draft to review and publish")),
            (PublishPolicy.PUBLISH, gettext_lazy("Publish it")),
        ],
        initial=PublishPolicy.DRAFT,
        widget=forms.RadioSelect,
    )

    def __init__(self, *args: Any, source: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.source = source

    def clean_locale(self) -> Locale:
        code = self.cleaned_data["locale"]
        locale = Locale.objects.filter(language_code__iexact=code).first()
        if locale is None:
            raise forms.ValidationError(_("There is no locale %(code)r.") % {"code": code})
        if locale.pk == self.source.locale_id:
            raise forms.ValidationError(
                _("%(locale)s is this object's own locale: choose another one to translate into.")
                % {"locale": locale.get_display_name()}
            )
        return locale


class TranslateNowView(ManageRunsRequiredMixin, WagtailAdminTemplateMixin, FormView):
    template_name = "wagtail_bulk_translate/translations_panel/translate_now.html"
    form_class = TranslateNowForm
    page_title = gettext_lazy("Translate now")
    header_icon = "globe"
    source: Any

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # Checked before the object is looked up, and answered like a missing object.
        if not can_manage_runs(request.user):
            raise Http404(MISSING)
        self.source = load_translatable(kwargs["app_label"], kwargs["model_name"], kwargs["pk"])
        return super().dispatch(request, *args, **kwargs)

    def get_page_subtitle(self) -> str:
        return str(self.source)

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = {**super().get_form_kwargs(), "source": self.source}
        if self.request.method == "GET":
            kwargs["data"] = None
            kwargs["initial"] = {"locale": self.request.GET.get("locale", "")}
        return kwargs

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        form = context["form"]
        code = form.data.get("locale") if form.is_bound else form.initial.get("locale")
        locale = Locale.objects.filter(language_code__iexact=code or "").first()
        states = api.source_states(self.source, [locale.pk]) if locale else []
        context.update(
            source=self.source,
            locale=locale if locale and locale.pk != self.source.locale_id else None,
            state=states[0] if states else None,
            source_url=AdminURLFinder(self.request.user).get_edit_url(self.source),
        )
        return context

    def form_valid(self, form: TranslateNowForm) -> HttpResponse:
        locale: Locale = form.cleaned_data["locale"]
        policy = form.cleaned_data["publish_policy"]
        try:
            check_may_translate(self.request.user, self.source, locale, policy)
            run = api.start_run(
                scope={"objects": [[model_label(type(self.source)), str(self.source.pk)]]},
                source_locale=self.source.locale,
                target_locales=[locale],
                mode=Mode.CHANGED,
                publish_policy=policy,
                user=self.request.user,
                origin=api.RunOrigin.ADMIN,
            )
        except (api.BulkTranslateError, ScopeNotAllowed) as err:
            form.add_error(None, str(err))
            return self.form_invalid(form)
        messages.success(self.request, _("%(run)s started.") % {"run": run_title(run)})
        return redirect("wagtail_bulk_translate:inspect", run.pk)


def load_translatable(app_label: str, model_name: str, pk: str) -> Any:
    try:
        model = apps.get_model(app_label, model_name)
    except LookupError as err:
        raise Http404(_("There is no model %(label)s.") % {"label": app_label}) from err
    if not issubclass(model, TranslatableMixin):
        raise Http404(_("This model is not translatable."))
    instance = find_object(model, pk)
    if instance is None:
        raise Http404(MISSING)
    return instance


def check_may_translate(user: Any, source: Any, locale: Locale, policy: str) -> None:
    """The user could edit the source by hand (as for any run) and write its target in
    ``locale`` (edit it, or add it where it goes when it is missing; publish it too, when
    publishing): the run's own per-object rule, asked before it starts."""
    check_user_can_translate(
        user, {"objects": [[model_label(type(source)), str(source.pk)]]}, source.locale
    )
    refused = api.permission_refusal(user, source, locale, publish=policy == PublishPolicy.PUBLISH)
    if refused is not None:
        raise ScopeNotAllowed(refused.message)


def translate_now_urls() -> list[URLPattern]:
    return [
        path(
            "bulk-translate/translate-now/<str:app_label>/<str:model_name>/<str:pk>/",
            TranslateNowView.as_view(),
            name=URL_NAME,
        )
    ]
