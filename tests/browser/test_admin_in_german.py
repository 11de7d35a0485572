"""In a real browser, as an editor whose Wagtail admin language is German: the plugin's main
screens, a run started through them from the form to its final report, and not one English
sentence of the plugin's on any of them.

"English sentence of the plugin's" is read from the German catalog: every run of three or more
words of a msgid (between its placeholders) whose German differs. Page titles and Wagtail's own
words are not the plugin's, so they may be anything.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import polib
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PAGE_TIMEOUT_MS, PASSWORD, RUN_TIMEOUT_MS, USERNAME
from tests.browser.flows import wait_for_run
from tests.browser.test_review import flagged_run
from tests.browser.test_runs import RUN_PAGE
from tests.browser.test_translations_panel import open_translations_panel
from tests.e2e.helpers import manage

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

CATALOG = (
    Path(__file__).resolve().parents[2] / "wagtail_bulk_translate/locale/de/LC_MESSAGES/django.po"
)
GERMAN_EDITOR = "greta"
PLACEHOLDER = re.compile(r"%\([^)]*\)[sdif]|%[sdif]|\{[^}]*\}|<[^>]*>")
MAKE_GERMAN_EDITOR = """
from django.contrib.auth import get_user_model
from wagtail.users.models import UserProfile
User = get_user_model()
editor = User.objects.get(username="{editor}")
greta, _ = User.objects.get_or_create(username="{name}", defaults={{"first_name": "Greta"}})
greta.set_password("{password}")
greta.save()
greta.groups.set(editor.groups.all())
profile = UserProfile.get_for_user(greta)
profile.preferred_language = "de"
profile.save()
"""


@cache
def german_catalog() -> polib.POFile:
    return polib.pofile(str(CATALOG))


def german(english: str) -> str:
    """The catalog's German for a msgid (the test clicks what a German editor sees)."""
    return german_catalog().find(english).msgstr


@cache
def english_sentences() -> frozenset[str]:
    found = set()
    for entry in german_catalog():
        if entry.obsolete or entry.msgstr == entry.msgid:
            continue
        for piece in PLACEHOLDER.split(entry.msgid):
            piece = " ".join(piece.split()).strip(" .,:;()“”\"'—-")
            if len(piece.split()) >= 3:
                found.add(piece)
    return frozenset(found)


def english_on(page, within: str = "main") -> list[str]:
    text = " ".join(" ".join(page.locator(within).all_inner_texts()).split())
    return sorted(sentence for sentence in english_sentences() if sentence in text)


@pytest.fixture
def german_page(chromium, live_site):
    manage(
        live_site.env,
        *("shell", "-c"),
        MAKE_GERMAN_EDITOR.format(editor=USERNAME, name=GERMAN_EDITOR, password=PASSWORD),
    )
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    page.goto(live_site.url("/admin/login/"))
    page.fill("#id_username", GERMAN_EDITOR)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_site.url("/admin/"))
    yield page
    context.close()


def expect_no_english(page, screen: str, within: str = "main") -> None:
    page.wait_for_load_state("load")
    assert page.locator("html").get_attribute("lang") == "de", screen
    assert english_on(page, within) == [], f"{screen} ({page.url}) shows English"


def test_the_catalog_yields_sentences_to_look_for():
    sentences = english_sentences()
    assert "Check and estimate" in sentences
    assert len(sentences) > 300


def test_a_german_editor_reads_no_english_sentence_of_the_plugins(german_page, live_site):
    page = german_page
    expect_no_english(page, "Dashboard")

    page.goto(live_site.url("/admin/bulk-translate/"))
    expect_no_english(page, "Runs listing")

    notes = live_site.page_id("Field notes")
    page.goto(live_site.url(f"/admin/bulk-translate/new/?pages={notes}&mode=refresh&targets=de"))
    expect_no_english(page, "New run")
    page.get_by_label(german("Start with a canary")).uncheck()
    page.get_by_role("button", name=german("Check and estimate")).click()
    expect(page.get_by_text(german("Before you start"))).to_be_visible()
    expect_no_english(page, "Preflight")

    page.get_by_role("button", name=german("Start the run")).click()
    page.wait_for_url(RUN_PAGE)
    expect_no_english(page, "Run page")
    expect(page.locator("[data-bt-final-report]")).to_be_attached(timeout=RUN_TIMEOUT_MS)
    expect_no_english(page, "Run page, finished")

    # A review flagged by the worker (in English, the site's language) reads in German.
    flagged, unit_id = flagged_run(live_site)
    page.goto(live_site.url(f"/admin/bulk-translate/review/?run={flagged}"))
    expect(page.locator(f'[data-bt-review="{unit_id}"] [data-bt-flag]').first).to_be_visible()
    expect_no_english(page, "Review queue, a flagged unit")
    page.locator(f'[data-bt-review="{unit_id}"] [data-bt-review-add-term]').click()
    expect(page.locator("#id_target_term")).to_be_visible()
    expect_no_english(page, "Review: add a term")

    for path, screen in [
        (f"/admin/bulk-translate/{flagged}/", "Run page, a flagged unit"),
        ("/admin/bulk-translate/review/", "Review queue"),
        ("/admin/bulk-translate/glossary/", "Glossary"),
        ("/admin/bulk-translate/glossary/import/", "Glossary import"),
        ("/admin/bulk-translate/house-style/", "House style"),
        ("/admin/bulk-translate/house-style/new/", "House style: add"),
        ("/admin/bulk-translate/sync/", "Automatic sync"),
        ("/admin/bulk-translate/budgets/", "Budgets"),
        ("/admin/bulk-translate/budgets/new/", "Budgets: add"),
        ("/admin/reports/translation-coverage/", "Coverage report"),
    ]:
        page.goto(live_site.url(path))
        expect_no_english(page, screen)


def test_the_canary_review_bulk_actions_and_translations_panel_speak_german(german_page, live_site):
    page = german_page
    about = live_site.page_id("About us")
    manage(
        live_site.env,
        *("bulk_translate", "start", "--page", str(about), "--locales", "de"),
        *("--mode", "refresh", "--canary", "2"),
    )
    canary_id, _status = live_site.latest_run()
    assert wait_for_run(live_site, canary_id) == "succeeded"
    page.goto(live_site.url(f"/admin/bulk-translate/{canary_id}/canary/"))
    expect(page.locator("[data-bt-sample]").first).to_be_attached()
    expect_no_english(page, "Canary review")
    page.goto(live_site.url(f"/admin/bulk-translate/{canary_id}/revert/"))
    expect_no_english(page, "Revert confirmation")

    home, notes = live_site.page_id("Northwind Journal"), live_site.page_id("Field notes")
    page.goto(
        live_site.url(
            f"/admin/bulk/wagtailcore/page/translate/?next=/admin/pages/{home}/&id={notes}"
        )
    )
    expect(page.get_by_label(german("Include descendants"))).to_be_visible()
    expect_no_english(page, "Bulk action: translate pages")

    page.goto(live_site.url(f"/admin/pages/{live_site.page_id('Contact')}/edit/"))
    open_translations_panel(page)
    expect_no_english(page, "Translations panel", within="[data-bt-translations-panel]")
