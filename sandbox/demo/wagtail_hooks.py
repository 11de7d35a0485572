from wagtail.snippets.models import register_snippet

from .models import Category, FooterText, Testimonial

register_snippet(Category)
register_snippet(Testimonial)
register_snippet(FooterText)
