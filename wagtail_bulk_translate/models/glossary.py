"""The glossary, the house style per locale, and the DeepL glossaries synced from them.

A term belongs to its source language (a Wagtail locale): its source text, whether matching is
case sensitive, and either a target term per locale or "never translate" (a brand or product
name that stays as written in every locale). House style is per target locale: DeepL's
formality and free instructions for language-model translators; the settings stay the default
for locales without a row. Editors change these in the admin; translators read them through
:mod:`wagtail_bulk_translate.glossary.lookup`.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from modelcluster.fields import ParentalKey
from modelcluster.models import ClusterableModel
from wagtail.models import Locale


class Formality(models.TextChoices):
    """DeepL's ``formality`` values; empty keeps the translator's option (or DeepL's default)."""

    UNSET = "", _("As configured")
    DEFAULT = "default", _("DeepL's default")
    MORE = "more", _("Formal (refused for languages without formality)")
    LESS = "less", _("Informal (refused for languages without formality)")
    PREFER_MORE = "prefer_more", _("Formal where the language has it")
    PREFER_LESS = "prefer_less", _("Informal where the language has it")


class GlossaryTermQuerySet(models.QuerySet):
    def of_source(self, source_locale_id: int) -> GlossaryTermQuerySet:
        return self.filter(source_locale_id=source_locale_id)


class GlossaryTerm(ClusterableModel):
    # Clusterable, so the admin edits a term and its translations in one form (InlinePanel).
    source_locale = models.ForeignKey(
        Locale,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("source language"),
    )
    source_term = models.CharField(_("term"), max_length=255)
    case_sensitive = models.BooleanField(
        _("case sensitive"),
        default=False,
        help_text=_("Match the term only with exactly this capitalisation."),
    )
    never_translate = models.BooleanField(
        _("never translate"),
        default=False,
        help_text=_(
            "A brand or product name: it stays exactly as written in every language, and its "
            "target terms are ignored."
        ),
    )
    note = models.CharField(_("note"), max_length=255, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects = GlossaryTermQuerySet.as_manager()

    class Meta:
        verbose_name = _("glossary term")
        verbose_name_plural = _("glossary terms")
        ordering = ["source_term"]
        constraints = [
            models.UniqueConstraint(
                fields=["source_locale", "source_term"], name="wbt_glossary_term_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.source_term


class GlossaryTranslation(models.Model):
    """How one term is translated into one target locale."""

    term = ParentalKey(GlossaryTerm, on_delete=models.CASCADE, related_name="translations")
    target_locale = models.ForeignKey(
        Locale,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("target language"),
    )
    target_term = models.CharField(_("translation"), max_length=255)

    class Meta:
        verbose_name = _("term translation")
        verbose_name_plural = _("term translations")
        constraints = [
            models.UniqueConstraint(
                fields=["term", "target_locale"], name="wbt_glossary_translation_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.target_term


class HouseStyle(models.Model):
    """How one target locale should read: DeepL's formality and instructions for LLMs."""

    locale = models.OneToOneField(
        Locale,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("target language"),
    )
    formality = models.CharField(
        _("DeepL formality"),
        max_length=16,
        choices=Formality.choices,
        blank=True,
        default=Formality.UNSET,
    )
    instructions = models.TextField(
        _("instructions for language models"),
        blank=True,
        help_text=_(
            "Tone, audience and conventions, e.g. “Address the reader informally (du). Keep "
            "sentences short.” Sent with every request of a language-model translator."
        ),
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("house style")
        verbose_name_plural = _("house styles")

    def __str__(self) -> str:
        return str(self.locale)


class SyncStatus(models.TextChoices):
    """Where a DeepL glossary stands against the terms it was built from."""

    PENDING = "pending", _("Waiting to sync")
    SYNCED = "synced", _("Synced")
    FAILED = "failed", _("Failed")
    UNSUPPORTED = "unsupported", _("Not supported by DeepL")
    EMPTY = "empty", _("No terms")


class DeepLGlossary(models.Model):
    """The DeepL glossary of one language pair, as last synced (or why it is not)."""

    source_locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    target_locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    glossary_id = models.CharField(_("DeepL glossary id"), max_length=64, blank=True)
    # A digest of the entries the glossary was built from: a sync replaces it only on change.
    entries_digest = models.CharField(max_length=64, blank=True)
    entry_count = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=SyncStatus.choices, default=SyncStatus.PENDING)
    message = models.TextField(blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)
    # When DeepL last received the pair's entries (a glossary created, or emptied): changes of
    # the glossary since then are not in DeepL's yet, so texts translated meanwhile are
    # outdated once they are (glossary/sync.py moves those changes to the sync's time).
    entries_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("DeepL glossary")
        verbose_name_plural = _("DeepL glossaries")
        constraints = [
            models.UniqueConstraint(
                fields=["source_locale", "target_locale"], name="wbt_deepl_glossary_pair"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source_locale} → {self.target_locale}"


class GlossaryChange(models.Model):
    """When an entry of a language pair's glossary, or a target locale's house style, last
    changed: the machine translations made before it are outdated where it applies (a term: the
    texts it occurs in; a house style: every text of the locale).

    One row per (source locale, target locale, term), kept after the term is removed (a text
    translated with a removed term is outdated too); a house style row has no source locale
    and an empty term. ``digest`` is what the entry said when last seen ("" once removed), so
    saving an unchanged term or style changes nothing.
    """

    source_locale = models.ForeignKey(
        Locale, on_delete=models.CASCADE, related_name="+", null=True, blank=True
    )
    target_locale = models.ForeignKey(Locale, on_delete=models.CASCADE, related_name="+")
    term = models.CharField(max_length=255, blank=True)
    case_sensitive = models.BooleanField(default=False)
    digest = models.CharField(max_length=64, blank=True)
    changed_at = models.DateTimeField()

    class Meta:
        verbose_name = _("glossary change")
        verbose_name_plural = _("glossary changes")
        indexes = [
            models.Index(fields=["target_locale", "source_locale"], name="wbt_glossary_change_idx")
        ]

    def __str__(self) -> str:
        return f"{self.term or 'house style'} → {self.target_locale}: {self.changed_at}"
