"""The demo site: a small magazine with the awkward cases of real sites.

Pages with rich text and nested StreamFields, plain-text fields holding coordinates, e-mail
addresses and codes, translatable snippets (one with drafts and revisions), a translatable
generic setting and a per-site setting.
"""

from django.db import models
from modelcluster.fields import ParentalKey
from wagtail.admin.panels import FieldPanel, InlinePanel
from wagtail.contrib.settings.models import BaseSiteSetting, register_setting
from wagtail.fields import RichTextField, StreamField
from wagtail.models import DraftStateMixin, Orderable, Page, RevisionMixin, TranslatableMixin

from wagtail_bulk_translate.translatable_settings import TranslatableGenericSetting

from .blocks import BodyBlock


class HomePage(Page):
    intro = RichTextField(blank=True)
    body = StreamField(BodyBlock(), blank=True)

    content_panels = [*Page.content_panels, FieldPanel("intro"), FieldPanel("body")]
    subpage_types = ["demo.ArticleIndexPage", "demo.LandingPage"]
    max_count_per_parent = 1


class ArticleIndexPage(Page):
    intro = RichTextField(blank=True)

    content_panels = [*Page.content_panels, FieldPanel("intro")]
    subpage_types = ["demo.ArticlePage"]

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        context["articles"] = self.get_children().live().specific().order_by("path")
        return context


class ArticlePage(Page):
    summary = models.CharField(max_length=255, blank=True)
    body = StreamField(BodyBlock(), blank=True)
    category = models.ForeignKey(
        "demo.Category", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Plain-text fields that are not prose: copied unchanged, never sent to the translator.
    coordinates = models.CharField(max_length=64, blank=True)
    contact_email = models.CharField(max_length=254, blank=True)
    reference_code = models.CharField(max_length=32, blank=True)

    content_panels = [
        *Page.content_panels,
        FieldPanel("summary"),
        FieldPanel("category"),
        FieldPanel("body"),
        FieldPanel("coordinates"),
        FieldPanel("contact_email"),
        FieldPanel("reference_code"),
    ]
    parent_page_types = ["demo.ArticleIndexPage"]
    subpage_types = []


class LandingPage(Page):
    body = StreamField(BodyBlock(), blank=True)

    content_panels = [*Page.content_panels, FieldPanel("body"), InlinePanel("faqs", label="FAQ")]


class LandingPageFAQ(TranslatableMixin, Orderable):
    page = ParentalKey(LandingPage, on_delete=models.CASCADE, related_name="faqs")
    question = models.CharField(max_length=255)
    answer = RichTextField()

    panels = [FieldPanel("question"), FieldPanel("answer")]

    class Meta(TranslatableMixin.Meta):
        ordering = ["sort_order"]


class Category(TranslatableMixin, models.Model):
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)

    class Meta(TranslatableMixin.Meta):
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class Testimonial(TranslatableMixin, models.Model):
    quote = models.TextField()
    author = models.CharField(max_length=100)
    role = models.CharField(max_length=100, blank=True)

    def __str__(self) -> str:
        return f"{self.author}: {self.quote[:40]}"


class FooterText(DraftStateMixin, RevisionMixin, TranslatableMixin, models.Model):
    body = RichTextField()

    panels = [FieldPanel("body")]

    class Meta(TranslatableMixin.Meta):
        verbose_name_plural = "footer text"

    def __str__(self) -> str:
        return "Footer text"


@register_setting(icon="site")
class SiteBranding(TranslatableGenericSetting):
    """One row per locale: the header tagline and the cookie banner follow the page's locale."""

    tagline = models.CharField(max_length=255, blank=True)
    cookie_notice = RichTextField(blank=True)


@register_setting(icon="link")
class SocialLinks(BaseSiteSetting):
    """One row per site; the fr/de/es sites each serve one locale (SITE_LOCALES)."""

    newsletter_pitch = models.CharField(max_length=255, blank=True)
    contact_heading = models.CharField(max_length=255, blank=True)
    analytics_id = models.CharField(max_length=32, blank=True)
    mastodon_url = models.URLField(blank=True)
