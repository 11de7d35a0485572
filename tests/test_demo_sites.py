"""The demo site on any port: rich-text page links as paths, sites that follow `make serve`."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from wagtail.models import Site
from wagtail.rich_text import expand_db_html

from demo.content import DEFAULT_PORT
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_sites():
    """The demo's sites: localhost and one per locale, all on one page tree, as seeded."""
    home = factories.home_page()
    Site.objects.all().delete()
    Site.objects.create(
        hostname="localhost", port=DEFAULT_PORT, root_page=home, is_default_site=True
    )
    for code in ("fr", "de", "es"):
        Site.objects.create(hostname=f"{code}.localhost", port=DEFAULT_PORT, root_page=home)
    Site.clear_site_root_paths_cache()
    return home


def test_rich_text_page_links_are_paths_whatever_the_port(demo_sites):
    news = factories.index_page(demo_sites, "News")

    html = expand_db_html(f'<p><a linktype="page" id="{news.pk}">News</a></p>')

    assert f'<a href="/en/{news.slug}/">' in html
    assert str(DEFAULT_PORT) not in html  # Wagtail alone writes http://localhost:8000/en/news/


def test_a_link_to_a_page_outside_every_site_has_no_href(demo_sites):
    orphan = factories.home_page("Not a site root")

    html = expand_db_html(f'<p><a linktype="page" id="{orphan.pk}">Gone</a></p>')

    assert "<a>Gone</a>" in html


def test_demo_sites_follow_the_port_make_serve_uses(demo_sites):
    out = StringIO()
    call_command("demo_sites", "--port", "8123", stdout=out)

    assert set(Site.objects.values_list("port", flat=True)) == {8123}
    assert out.getvalue().strip() == "Demo sites on port 8123 (4 changed)."
    assert demo_sites.get_full_url().startswith("http://localhost:8123/")


def test_demo_sites_refuses_a_port_out_of_range(demo_sites):
    with pytest.raises(CommandError, match="between 1 and 65535"):
        call_command("demo_sites", "--port", "70000")

    assert set(Site.objects.values_list("port", flat=True)) == {DEFAULT_PORT}
