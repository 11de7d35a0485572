from django.utils.html import escape
from wagtail import hooks
from wagtail.rich_text.pages import PageLinkHandler
from wagtail.snippets.models import register_snippet

from .models import Category, FooterText, Testimonial

register_snippet(Category)
register_snippet(Testimonial)
register_snippet(FooterText)


class PathPageLinkHandler(PageLinkHandler):
    """Page links in rich text as paths (``/fr/…``), whatever host and port serve the page.

    The demo's sites (localhost and one per locale) share one page tree, so Wagtail writes these
    links as full URLs with the first site's host and port, which break on any other port.
    """

    @classmethod
    def expand_db_attributes_many(cls, attrs_list: list[dict]) -> list[str]:
        return [link_tag(page) for page in cls.get_many(attrs_list)]


def link_tag(page) -> str:
    # get_url_parts: (site id, root URL, path), or None for a page outside every site.
    parts = page.localized.get_url_parts() if page else None
    path = parts[2] if parts else None
    return f'<a href="{escape(path)}">' if path else "<a>"


# After Wagtail's own registration (order 0), which would otherwise replace this handler.
@hooks.register("register_rich_text_features", order=10)
def register_path_page_links(features) -> None:
    features.register_link_type(PathPageLinkHandler)
