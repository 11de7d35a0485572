"""The new-run wizard: the form, then the preflight, then start.

Every step posts the whole request again (no session state): the preflight page carries the
form as hidden inputs plus a signed summary of the estimate, so starting does not compute the
preflight twice, and a changed request (or a tampered estimate) gets a fresh preflight.

Pre-filling GET parameters (the coverage report links here with them)::

    ?pages=<page id>          a page and the pages under it (repeatable)
    &page_types=app.Model     only pages of this type (repeatable; default: every type)
    &snippets=app.Model       a snippet type (repeatable)
    &settings=app.Model       a settings type (repeatable)
    &targets=fr               a target locale code, or "all" (repeatable)
    &source=en                the source locale code
    &mode=changed             changed, refresh or overwrite
    &whole_site=1             the whole site

Values that do not exist are left out with a warning saying which.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.apps import apps
from django.core import signing
from django.forms import BaseFormSet
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from wagtail.admin import messages
from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin
from wagtail.models import Page

from ... import api
from ...ids import parse_pk
from ...models import ContentSource, Mode, PublishPolicy
from ..columns import run_title
from ..forms import (
    NewRunForm,
    PageRootForm,
    PageRootFormSet,
    RunOptionsForm,
    field_choices,
    page_roots,
)
from ..permissions import ScopeNotAllowed, check_user_can_translate
from .mixins import ManageRunsRequiredMixin

SIGNING_SALT = "wagtail_bulk_translate.preflight"
ESTIMATE_MAX_AGE = 3600  # seconds an estimate stays valid for starting


@dataclass(frozen=True)
class SignedEstimate:
    """What starting needs from a preflight shown to the editor (see RunOptionsForm)."""

    estimated_cost: Decimal
    currency: str
    total_characters: int
    units_total: int


def request_digest(scope: api.Scope, source_code: str, options: dict[str, Any]) -> str:
    payload = json.dumps([scope.to_json(), source_code, options], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def sign_estimate(digest: str, estimate: api.Preflight) -> str:
    return signing.dumps(
        {
            "digest": digest,
            "cost": str(estimate.estimated_cost),
            "currency": estimate.currency,
            "characters": estimate.total_characters,
            "units": estimate.units_total,
        },
        salt=SIGNING_SALT,
    )


def read_estimate(token: str, digest: str) -> SignedEstimate | None:
    """The signed estimate, if it is genuine, fresh and about this very request."""
    try:
        data = signing.loads(token, salt=SIGNING_SALT, max_age=ESTIMATE_MAX_AGE)
    except signing.BadSignature:
        return None
    if data.get("digest") != digest:
        return None
    return SignedEstimate(
        Decimal(data["cost"]), data["currency"], int(data["characters"]), int(data["units"])
    )


class NewRunView(ManageRunsRequiredMixin, WagtailAdminTemplateMixin, View):
    page_title = gettext_lazy("New bulk translation run")
    header_icon = "globe"
    form_template = "wagtail_bulk_translate/runs/new_run.html"
    preflight_template = "wagtail_bulk_translate/runs/preflight.html"
    index_url_name = "wagtail_bulk_translate:index"

    def get_breadcrumbs_items(self) -> list[dict[str, Any]]:
        return [
            *self.breadcrumbs_items,
            {"url": reverse(self.index_url_name), "label": _("Bulk translation")},
            {"url": "", "label": self.get_page_title()},
        ]

    # --- GET: the form, possibly pre-filled ---------------------------------------------------

    def get(self, request: HttpRequest) -> HttpResponse:
        initial, page_ids = self.prefill(request.GET)
        form = NewRunForm(initial=initial)
        formset = PageRootFormSet(
            prefix="pages", initial=[{"page": pk, "descendants": True} for pk in page_ids]
        )
        return self.render_form(form, formset)

    def prefill(self, params: QueryDict) -> tuple[dict[str, Any], list[int]]:
        initial: dict[str, Any] = {}
        form = NewRunForm()
        for name, param in (
            ("snippets", "snippets"),
            ("settings", "settings"),
            ("page_types", "page_types"),
        ):
            initial[name] = self.known(params.getlist(param), field_choices(form, name), name)
        initial["target_locales"] = self.known(
            params.getlist("targets"), field_choices(form, "target_locales"), _("locales")
        )
        if source := params.get("source"):
            codes = [code for code, _label in field_choices(form, "target_locales")]
            if self.known([source], [(c, c) for c in codes], _("locales")):
                initial["source_locale"] = source
        mode = params.get("mode")
        if mode and self.known([mode], field_choices(form, "mode"), _("mode")):
            initial["mode"] = mode
        initial["whole_site"] = params.get("whole_site") in ("1", "true", "on")
        return initial, self.known_pages(params.getlist("pages"))

    def known(self, values: list[str], choices: Iterable[tuple[Any, Any]], what: str) -> list[str]:
        valid = {str(value) for value, _label in choices}
        unknown = [value for value in values if value not in valid]
        if unknown:
            messages.warning(
                self.request,
                _("Left out unknown %(what)s: %(values)s.")
                % {"what": what, "values": ", ".join(unknown)},
            )
        return [value for value in values if value in valid]

    def known_pages(self, values: list[str]) -> list[int]:
        ids = [pk for pk in (parse_pk(Page, value) for value in values) if pk is not None]
        found = set(Page.objects.filter(pk__in=ids).values_list("pk", flat=True))
        missing = [value for value in values if parse_pk(Page, value) not in found]
        if missing:
            messages.warning(
                self.request,
                _("Left out pages that do not exist: %(ids)s.") % {"ids": ", ".join(missing)},
            )
        return [pk for pk in ids if pk in found]

    # --- POST: add a page row, preflight, or start ----------------------------------------------

    def post(self, request: HttpRequest) -> HttpResponse:
        form = NewRunForm(request.POST)
        formset = PageRootFormSet(request.POST, prefix="pages")
        action = request.POST.get("action", "preflight")
        if action == "add_page":
            return self.render_form(form, self.with_one_more_row(formset), validate=False)
        valid = form.is_valid() & formset.is_valid()
        roots = page_roots(formset) if formset.is_valid() else []
        # Checked even when other fields failed, so every mistake shows at once.
        if not (form.check_scope_chosen(roots) and valid):
            return self.render_form(form, formset)
        if action == "edit":
            return self.render_form(form, formset)
        scope = form.scope(roots)
        source = form.cleaned_data["source_locale"]
        try:
            check_user_can_translate(request.user, scope, source)
        except ScopeNotAllowed as refusal:
            form.add_error(None, str(refusal))
            return self.render_form(form, formset)
        digest = request_digest(scope, source.language_code, form.run_options())
        if action == "start":
            estimate = read_estimate(request.POST.get("estimate", ""), digest)
            if estimate is not None and may_start(form, estimate):
                return self.start(form, formset, scope, estimate)
        return self.preflight(form, formset, scope, digest)

    def with_one_more_row(self, formset: BaseFormSet[PageRootForm]) -> BaseFormSet[PageRootForm]:
        data = self.request.POST.copy()
        key = f"{formset.prefix}-TOTAL_FORMS"
        total = int(data.get(key) or 0)
        if total < PageRootFormSet.max_num:
            data[key] = str(total + 1)
            data[f"{formset.prefix}-{total}-descendants"] = "on"  # the default of a new row
        return PageRootFormSet(data, prefix=formset.prefix)

    def preflight(
        self,
        form: NewRunForm,
        formset: BaseFormSet[PageRootForm],
        scope: api.Scope,
        digest: str,
    ) -> HttpResponse:
        data = form.cleaned_data
        try:
            options = form.run_options()
            estimate = api.preflight(
                scope,
                data["source_locale"],
                data["target_locales"],
                mode=data["mode"],
                user=self.request.user,
                translator=options["translator"],
                allowed_translators=options["allowed_translators"],
            )
        except api.BulkTranslateError as err:
            form.add_api_error(err)
            return self.render_form(form, formset)
        return TemplateResponse(
            self.request,
            self.preflight_template,
            self.get_context_data(
                form=form,
                formset=formset,
                estimate=estimate,
                signed_estimate=sign_estimate(digest, estimate),
                needs_cost_confirmation=form.needs_cost_confirmation(estimate),
                rows=preflight_rows(estimate, form.run_options()),
            ),
        )

    def start(
        self,
        form: NewRunForm,
        formset: BaseFormSet[PageRootForm],
        scope: api.Scope,
        estimate: SignedEstimate,
    ) -> HttpResponse:
        data = form.cleaned_data
        try:
            run = api.start_run(
                scope=scope,
                source_locale=data["source_locale"],
                user=self.request.user,
                estimated_characters=estimate.total_characters,
                **form.run_options(),
            )
        except api.BulkTranslateError as err:
            form.add_api_error(err)
            return self.render_form(form, formset)
        messages.success(self.request, _("%(run)s started.") % {"run": run_title(run)})
        return redirect("wagtail_bulk_translate:inspect", run.pk)

    def render_form(
        self, form: NewRunForm, formset: BaseFormSet[PageRootForm], *, validate: bool = True
    ) -> HttpResponse:
        if not validate:
            # Adding a page row is not a submission: show no errors yet.
            # django-stubs do not declare these private error caches of forms and formsets.
            form._errors, formset._errors, formset._non_form_errors = {}, [], []  # type: ignore[attr-defined]
        elif form.is_bound and (form.errors or not formset.is_valid()):
            messages.error(
                self.request, _("The run was not started: correct the errors below, then retry.")
            )
        return TemplateResponse(
            self.request,
            self.form_template,
            self.get_context_data(form=form, formset=formset, media=form.media + formset.media),
        )


def may_start(form: RunOptionsForm, estimate: SignedEstimate) -> bool:
    """Units to translate, a canary smaller than the run, the cost confirmed if asked:
    otherwise the preflight is shown again (with the reason)."""
    canary = form.run_options()["canary_size"]
    if not estimate.units_total or api.canary_too_large(estimate.units_total, canary):
        return False
    return form.check_cost_confirmed(estimate)


def preflight_rows(estimate: api.Preflight, options: dict[str, Any]) -> dict[str, Any]:
    """What the preflight template shows beside the estimate: what will happen (recap), why
    it may not start (refusal, "" when it may), (type name, objects, units) rows, (locale,
    translator profile, strings, characters) rows and the quota left."""
    models = [
        (verbose_name_plural(label), objects, estimate.units_by_model.get(label, 0))
        for label, objects in estimate.objects_by_model.items()
    ]
    locales = [
        (
            code,
            estimate.locale_profiles.get(code, ""),
            strings,
            estimate.characters_to_bill.get(code, 0),
        )
        for code, strings in estimate.strings_to_translate.items()
    ]
    refusal = api.empty_scope_reason(estimate) or api.canary_too_large(
        estimate.units_total, options["canary_size"]
    )
    return {
        "recap": recap(estimate, options),
        "refusal": refusal,
        "models": models,
        "locales": locales,
        "quota_left": estimate.usage.remaining if estimate.usage else None,
    }


MODE_EFFECTS = {
    Mode.CHANGED: gettext_lazy(
        "new and changed content only; translations of unchanged content are kept"
    ),
    Mode.REFRESH: gettext_lazy("every machine translation again; manual translations are kept"),
    Mode.OVERWRITE: gettext_lazy("everything again: manual translations are replaced too"),
}
PUBLISH_EFFECTS = {
    PublishPolicy.DRAFT: gettext_lazy("saved as drafts, for review before they go live"),
    PublishPolicy.PUBLISH: gettext_lazy("published at once"),
    PublishPolicy.MIRROR: gettext_lazy(
        "published where the source is live, saved as drafts where it is not"
    ),
}
CONTENT_EFFECTS = {
    ContentSource.LIVE: gettext_lazy("the live (published) version of each page and snippet"),
    ContentSource.LATEST_DRAFT: gettext_lazy(
        "the latest draft of each page and snippet, unpublished changes included"
    ),
}


def recap(estimate: api.Preflight, options: dict[str, Any]) -> list[tuple[str, str]]:
    """(what, how) rows: what the run will do, in words, before the numbers."""
    if options["canary_size"]:
        publishing = _("saved as drafts: a canary never publishes")
    else:
        publishing = str(PUBLISH_EFFECTS[options["publish_policy"]])
    if not estimate.translator_name:
        translator = _("none can be loaded (see the warnings above)")
    elif estimate.writes_fake_text:
        translator = _(
            "%(name)s: it writes visibly fake text (e.g. [fr: Ĥéļļó]) to try the pipeline "
            "out, not translations; never publish it on a real site"
        ) % {"name": estimate.translator_name}
    else:
        translator = estimate.translator_name
    return [
        (_("Mode"), f"{Mode(options['mode']).label}: {MODE_EFFECTS[options['mode']]}"),
        (_("Translations"), publishing),
        (_("Translated from"), str(CONTENT_EFFECTS[options["content_source"]])),
        (_("Translator"), translator),
    ]


def verbose_name_plural(label: str) -> str:
    try:
        return capfirst(apps.get_model(label)._meta.verbose_name_plural)
    except (LookupError, ValueError):
        return label
