"""The "Glossary" menu: terms, house style per locale, and the DeepL glossaries' state.

URL namespaces: ``wagtail_bulk_translate_glossary`` (``index``, ``add``, ``edit``, ``delete``,
``import``, ``export``), ``wagtail_bulk_translate_house_style`` (``index``, ``add``, ``edit``,
``delete``) and ``wagtail_bulk_translate_deepl_glossaries`` (``index``, ``sync``).
"""

from __future__ import annotations

from django.urls import URLPattern, path
from django.utils.translation import gettext_lazy as _
from wagtail.admin.panels import FieldPanel, InlinePanel, ObjectList, Panel
from wagtail.admin.views import generic
from wagtail.admin.viewsets.base import ViewSetGroup

from ...models import DeepLGlossary, GlossaryTerm, HouseStyle
from ..plugin_viewset import PluginModelViewSet
from ..views.mixins import ManageRunsRequiredMixin
from . import terms
from .csv_views import GlossaryExportView, GlossaryImportResultView, GlossaryImportView
from .deepl_sync import DeepLGlossaryIndexView, SyncNowView
from .forms import GlossaryTermForm, HouseStyleForm
from .permissions import (
    deepl_glossary_permission_policy,
    house_style_permission_policy,
    term_permission_policy,
)


class GlossaryTermViewSet(PluginModelViewSet):
    model = GlossaryTerm
    name = "wagtail_bulk_translate_glossary"
    url_prefix = "bulk-translate/glossary"
    icon = "openquote"
    menu_label = _("Terms")
    index_view_class = terms.TermIndexView
    add_view_class = terms.TermCreateView
    edit_view_class = terms.TermEditView
    delete_view_class = terms.TermDeleteView
    list_filter = ["source_locale", "never_translate", "case_sensitive"]
    search_fields = ["source_term", "translations__target_term", "note"]
    list_per_page = 50
    edit_handler: Panel = ObjectList(
        [
            FieldPanel("source_locale"),
            FieldPanel("source_term"),
            FieldPanel("never_translate"),
            FieldPanel("case_sensitive"),
            FieldPanel("note"),
            InlinePanel(
                "translations",
                panels=[FieldPanel("target_locale"), FieldPanel("target_term")],
                heading=_("Translations"),
                label=_("Translation"),
            ),
        ],
        base_form_class=GlossaryTermForm,
    )

    policy = term_permission_policy

    def get_urlpatterns(self) -> list[URLPattern]:
        return [
            *super().get_urlpatterns(),
            path("import/", GlossaryImportView.as_view(), name="import"),
            path("import/<id:pk>/", GlossaryImportResultView.as_view(), name="import_result"),
            path("export/", GlossaryExportView.as_view(), name="export"),
        ]


class HouseStyleIndexView(ManageRunsRequiredMixin, generic.IndexView):
    pass


class HouseStyleCreateView(ManageRunsRequiredMixin, generic.CreateView):
    pass


class HouseStyleEditView(ManageRunsRequiredMixin, generic.EditView):
    pass


class HouseStyleDeleteView(ManageRunsRequiredMixin, generic.DeleteView):
    pass


class HouseStyleViewSet(PluginModelViewSet):
    model = HouseStyle
    name = "wagtail_bulk_translate_house_style"
    url_prefix = "bulk-translate/house-style"
    icon = "edit"
    menu_label = _("House style")
    index_view_class = HouseStyleIndexView
    add_view_class = HouseStyleCreateView
    edit_view_class = HouseStyleEditView
    delete_view_class = HouseStyleDeleteView
    list_display = ["locale", "formality", "instructions", "updated_at"]
    edit_handler: Panel = ObjectList(
        [FieldPanel("locale"), FieldPanel("formality"), FieldPanel("instructions")],
        base_form_class=HouseStyleForm,
    )

    policy = house_style_permission_policy


class DeepLGlossaryViewSet(PluginModelViewSet):
    model = DeepLGlossary
    name = "wagtail_bulk_translate_deepl_glossaries"
    url_prefix = "bulk-translate/deepl-glossaries"
    icon = "resubmit"
    menu_label = _("DeepL glossaries")
    index_view_class = DeepLGlossaryIndexView
    form_fields: list[str] = []

    policy = deepl_glossary_permission_policy

    def get_urlpatterns(self) -> list[URLPattern]:
        return [
            path("", self.index_view, name="index"),
            path("results/", self.index_results_view, name="index_results"),
            path("sync/", SyncNowView.as_view(), name="sync"),
        ]


class GlossaryViewSetGroup(ViewSetGroup):
    items = (GlossaryTermViewSet, HouseStyleViewSet, DeepLGlossaryViewSet)
    menu_label = _("Glossary")
    menu_icon = "openquote"
    menu_order = 251
