"""A run that creates a locale's home page, with the site served beside the worker: the web
process learns the new site root at once (no 500 on that locale's pages until a restart).

Its own live site (not the session's): the German home page must not exist when the server
first caches Wagtail's site root paths, whatever the other browser tests translated.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.browser.conftest import LiveSite
from tests.e2e.helpers import manage

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


@pytest.fixture(scope="module")
def fresh_site(tmp_path_factory):
    site = LiveSite(tmp_path_factory.mktemp("site-roots"))
    try:
        site.start()
        yield site
    finally:
        site.stop()


def status_of(site: LiveSite, path: str) -> int:
    try:
        with urllib.request.urlopen(site.url(path), timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


def test_the_server_serves_a_locale_home_page_a_worker_just_created(fresh_site):
    site = fresh_site
    assert site.query(
        "SELECT count(*) FROM wagtailcore_page p JOIN wagtailcore_locale l "
        "ON p.locale_id = l.id WHERE l.language_code = 'de' AND p.depth = 2"
    ) == [(0,)]
    assert status_of(site, "/") == 200  # the server caches the site root paths (no German yet)
    home_id = site.query("SELECT root_page_id FROM wagtailcore_site WHERE is_default_site")[0][0]

    manage(
        site.env,
        "bulk_translate", "start", "--page", str(home_id), "--locales", "de",
        "--publish", "publish", "--wait", "--timeout", "240",
    )  # fmt: skip

    assert site.query(
        "SELECT count(*) FROM wagtailcore_page p JOIN wagtailcore_locale l "
        "ON p.locale_id = l.id WHERE l.language_code = 'de' AND p.depth = 2 AND p.live"
    ) == [(1,)]
    assert status_of(site, "/de/") == 200, site.server_log()
    assert status_of(site, "/") == 200
