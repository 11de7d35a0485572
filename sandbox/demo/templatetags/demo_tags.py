from django import template
from wagtail.models import Locale

from ..models import FooterText, Testimonial

register = template.Library()


@register.inclusion_tag("demo/includes/footer.html", takes_context=True)
def demo_footer(context):
    """The footer snippet and a testimonial in the page's locale (nothing if untranslated)."""
    page = context.get("page")
    locale = page.locale if page is not None else Locale.get_active()
    return {
        "footer": FooterText.objects.filter(locale=locale, live=True).first(),
        "testimonial": Testimonial.objects.filter(locale=locale).order_by("pk").first(),
        "request": context.get("request"),
        "settings": context.get("settings"),
    }
