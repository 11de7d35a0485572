"""Actions on a run: POST only (with CSRF), each refused unless the run's state allows it.

Cancel and revert are destructive: a GET shows what they will do and asks for confirmation.
Every action goes through ``wagtail_bulk_translate.api`` and is recorded in the audit log.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views import View
from wagtail.admin import messages
from wagtail.admin.utils import get_user_display_name
from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin

from ... import api
from ...models import Run, UnitStatus
from .. import log_actions
from ..actions import CANCEL, PAUSE, PROMOTE, RESUME, RETRY, REVERT, allowed_actions
from ..objects import objects_of_units, title
from ..permissions import ScopeNotAllowed, check_user_can_translate
from ..progress import Progress, run_report
from ..retry_form import RetryForm
from .mixins import ManageRunsRequiredMixin, RunSubpageMixin
from .run_page import load_run, run_title

REVERT_SAMPLE = 20


class RunActionView(ManageRunsRequiredMixin, View):
    action = ""
    log_action = ""
    # A whole sentence per action (a translator sees it whole; no verb is spliced in).
    refused_text = gettext_lazy("%(run)s cannot be changed now: it is %(status)s.")
    # Actions that write or delete content are refused to an editor who could not edit all of
    # the run's scope by hand, as starting the run would have been.
    writes_content = False
    http_method_names = ["post"]
    run: Run

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        self.run = load_run(pk)
        if self.action not in allowed_actions(self.run, progress_of(self.run)):
            messages.error(request, self.refused_message(), buttons=self.refused_buttons())
            return redirect("wagtail_bulk_translate:inspect", pk)
        try:
            self.check_user_can_edit_scope()
            return self.perform()
        except api.BulkTranslateError as err:
            messages.error(request, str(err))
            return redirect("wagtail_bulk_translate:inspect", pk)

    def check_user_can_edit_scope(self) -> None:
        if not self.writes_content:
            return
        try:
            check_user_can_translate(
                self.request.user, self.run.scope, self.run.source_locale, run_action=self.action
            )
        except ScopeNotAllowed as refusal:
            raise api.RunConfigurationError(str(refusal)) from refusal

    def refused_message(self) -> str:
        return self.refused_text % {
            "run": run_title(self.run),
            "status": self.run.get_status_display().lower(),
        }

    def refused_buttons(self) -> list:
        return []

    def perform(self) -> HttpResponse:
        raise NotImplementedError

    def done(self, message: str, **data: Any) -> HttpResponse:
        log_actions.log_run_action(self.run, self.log_action, self.request.user, **data)
        messages.success(self.request, message)
        return redirect("wagtail_bulk_translate:inspect", self.run.pk)


def progress_of(run: Run) -> Progress:
    api.keep_janitor_alive()  # an editor is watching: re-arm the janitor if its chain died
    return Progress(run.status, run.unit_counts(), run.enumeration_done)


class ConfirmedActionView(RunSubpageMixin, WagtailAdminTemplateMixin, RunActionView):
    """A destructive action: GET renders a confirmation page (in Wagtail's admin layout, with
    its header bar), POST (with confirm) acts."""

    http_method_names = ["get", "post"]
    template_name = "wagtail_bulk_translate/runs/confirm_action.html"
    header_icon = "globe"

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        self.run = load_run(pk)
        if self.action not in allowed_actions(self.run, progress_of(self.run)):
            messages.error(request, self.refused_message())
            return redirect("wagtail_bulk_translate:inspect", pk)
        context = self.get_context_data(
            run=self.run, run_title=run_title(self.run), action=self.action
        )
        context.update(self.confirmation_context())
        return self.render_to_response(context)

    def confirmation_context(self) -> dict:
        return {}


class CancelView(ConfirmedActionView):
    action, log_action = CANCEL, log_actions.CANCELLED
    refused_text = gettext_lazy("%(run)s cannot be cancelled now: it is %(status)s.")
    page_title = gettext_lazy("Cancel")

    def confirmation_context(self) -> dict:
        pending = self.run.units.filter(status=UnitStatus.PENDING).count()
        running = self.run.units.filter(status=UnitStatus.RUNNING).count()
        return {"pending": pending, "running": running}

    def perform(self) -> HttpResponse:
        cancelled = api.cancel_run(self.run.pk)
        message = ngettext(
            "%(run)s cancelled: %(n)d pending unit will not be translated.",
            "%(run)s cancelled: %(n)d pending units will not be translated.",
            cancelled,
        ) % {
            "run": run_title(self.run),
            "n": cancelled,
        }
        return self.done(message, units_cancelled=cancelled)


class RevertView(ConfirmedActionView):
    action, log_action = REVERT, log_actions.REVERTED
    refused_text = gettext_lazy("%(run)s cannot be reverted now: it is %(status)s.")
    page_title = gettext_lazy("Revert")
    writes_content = True

    def confirmation_context(self) -> dict:
        written = self.run.units.filter(status=UnitStatus.SUCCEEDED).exclude(
            revert_state__isnull=True
        )
        created = Q(revert_state__created=True) | Q(revert_state__existed=False)
        sample = list(written.select_related("target_locale").order_by("-position")[:REVERT_SAMPLE])
        objects = objects_of_units(sample)
        return {
            "to_delete": written.filter(created).count(),
            "to_restore": written.exclude(created).count(),
            "sample": [
                {
                    "title": title(objects[unit.pk].target) or title(objects[unit.pk].source),
                    "locale": unit.target_locale.language_code,
                    "created": bool(
                        (unit.revert_state or {}).get("created")
                        or not (unit.revert_state or {}).get("existed", True)
                    ),
                }
                for unit in sample
            ],
        }

    def perform(self) -> HttpResponse:
        api.start_revert(self.run.pk)
        message = _(
            "Reverting %(run)s in the background: targets it created are deleted, the others "
            "restored. Targets edited since are kept and listed here."
        ) % {"run": run_title(self.run)}
        return self.done(message)


class PauseView(RunActionView):
    action, log_action = PAUSE, log_actions.PAUSED
    refused_text = gettext_lazy("%(run)s cannot be paused now: it is %(status)s.")

    def perform(self) -> HttpResponse:
        message = _("Paused by %(user)s.") % {"user": get_user_display_name(self.request.user)}
        if not api.pause_run(self.run.pk, message=message):
            raise api.RunConfigurationError(_("The run had already stopped."))
        return self.done(
            _("%(run)s paused: units in flight finish, no new ones start.")
            % {"run": run_title(self.run)}
        )


class ResumeView(RunActionView):
    action, log_action = RESUME, log_actions.RESUMED
    refused_text = gettext_lazy("%(run)s cannot be resumed now: it is %(status)s.")
    writes_content = True

    def perform(self) -> HttpResponse:
        if not api.resume_run(self.run.pk):
            raise api.RunConfigurationError(_("The run was not paused any more."))
        return self.done(_("%(run)s resumed.") % {"run": run_title(self.run)})


class RetryView(RunActionView):
    action, log_action = RETRY, log_actions.RETRIED
    refused_text = gettext_lazy("%(run)s cannot be retried now: it is %(status)s.")
    writes_content = True

    def perform(self) -> HttpResponse:
        form = RetryForm(self.request.POST, report=run_report(self.run))
        if not form.is_valid():
            raise api.RunConfigurationError(
                _("Those filters match no failed unit of this run: choose among those listed.")
            )
        filters = form.filters()
        queued = api.retry_failed(self.run.pk, **filters, user=self.request.user)
        if not queued:
            raise api.RunConfigurationError(
                _(
                    "No failed unit could be queued again (their objects are being translated by "
                    "another run): try again when it has finished."
                )
            )
        message = ngettext(
            "%(n)d failed unit queued again.", "%(n)d failed units queued again.", queued
        ) % {"n": queued}
        return self.done(message, units_queued=queued, **filters)


class PromoteView(RunActionView):
    action, log_action = PROMOTE, log_actions.PROMOTED
    refused_text = gettext_lazy("%(run)s cannot be promoted now: it is %(status)s.")
    writes_content = True  # the full run is a new run over the canary's whole scope

    def refused_message(self) -> str:
        promoted = self.run.promotions.order_by("pk").first()
        if promoted is None:
            return super().refused_message()
        return _("%(run)s was already promoted to run #%(full)d.") % {
            "run": run_title(self.run),
            "full": promoted.pk,
        }

    def refused_buttons(self) -> list:
        promoted = self.run.promotions.order_by("pk").first()
        if promoted is None:
            return []
        url = reverse("wagtail_bulk_translate:inspect", args=[promoted.pk])
        return [messages.button(url, _("Open run #%(n)d") % {"n": promoted.pk})]

    def perform(self) -> HttpResponse:
        full_run = api.promote_canary(self.run.pk, user=self.request.user)
        log_actions.log_run_action(
            self.run, self.log_action, self.request.user, full_run=full_run.pk
        )
        messages.success(
            self.request,
            _("%(run)s started with the canary's settings; the canary's work is reused.")
            % {"run": run_title(full_run)},
        )
        return redirect("wagtail_bulk_translate:inspect", full_run.pk)
