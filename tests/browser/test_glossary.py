"""In a real browser, as the demo's editor (not a superuser): add a term with a translation and
a never-translate name through the Glossary menu, then import a CSV (a bad one first)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

GOOD_CSV = (
    "source_locale,term,case_sensitive,never_translate,target_locale,translation\n"
    "en,hedge trimmer,no,no,de,Heckenschere\n"
    "en,hedge trimmer,no,no,fr,taille-haie\n"
    "en,Wagtail,yes,yes,,\n"
)
BAD_CSV = GOOD_CSV + "xx,lawn,no,no,de,Rasen\n"


def csv_file(text: str) -> dict:
    return {"name": "glossary.csv", "mimeType": "text/csv", "buffer": text.encode()}


def open_terms(page, live_site) -> None:
    page.goto(live_site.url("/admin/"))
    menu = page.get_by_role("navigation", name="Main menu")
    menu.get_by_role("button", name="Glossary").click()
    menu.get_by_role("link", name="Terms").click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/glossary/$"))


def add_term(page, term: str, *, translation: tuple[str, str] | None = None, never=False) -> None:
    page.get_by_role("link", name="Add glossary term").first.click()
    page.select_option("#id_source_locale", label="English")
    page.fill("#id_source_term", term)
    if never:
        page.check("#id_never_translate")
    if translation:
        page.get_by_role("button", name="Add translation").click()
        page.select_option("#id_translations-0-target_locale", label=translation[0])
        page.fill("#id_translations-0-target_term", translation[1])
    page.get_by_role("button", name="Create", exact=True).click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/glossary/$"))
    expect(page.get_by_text(f"Glossary term '{term}' created.")).to_be_visible()


def test_editor_adds_terms_and_imports_a_csv(editor_page, live_site, screenshot):
    page = editor_page
    open_terms(page, live_site)

    add_term(page, "pruning shears", translation=("German", "Gartenschere"))
    add_term(page, "ACME", never=True)
    table = page.locator("table.listing")
    expect(table.locator("tr", has_text="pruning shears")).to_contain_text("de: Gartenschere")
    expect(table.locator("tr", has_text="ACME")).to_contain_text("Never translated")

    page.get_by_role("link", name="Import CSV").click()
    page.set_input_files("#id_file", csv_file(BAD_CSV))
    page.locator("[data-bt-import-submit]").click()
    errors = page.locator("[data-bt-import-errors]")
    expect(errors).to_contain_text("Row 5: “xx” is not a locale of this site")
    expect(errors).to_contain_text("Nothing was imported")

    page.set_input_files("#id_file", csv_file(GOOD_CSV))
    page.locator("[data-bt-import-submit]").click()
    # Checked on upload, written in the background by the worker: the result page reloads
    # itself until the import is done.
    page.wait_for_url(re.compile(r"/admin/bulk-translate/glossary/import/\d+/$"))
    expect(page.locator('[data-bt-import-status="succeeded"]')).to_be_visible(timeout=120_000)
    expect(page.get_by_text("2 terms added, 0 updated, 2 translations written")).to_be_visible()
    page.get_by_role("link", name="Back to the glossary").click()
    page.wait_for_url(re.compile(r"/admin/bulk-translate/glossary/$"))
    expect(table.locator("tr", has_text="hedge trimmer")).to_contain_text("fr: taille-haie")
    expect(table.locator("tr", has_text="Wagtail")).to_contain_text("Never translated")
    screenshot(page, "glossary_terms")

    assert live_site.query(
        "SELECT count(*) FROM wagtail_bulk_translate_glossaryterm WHERE source_term IN "
        "('pruning shears', 'ACME', 'hedge trimmer', 'Wagtail')"
    ) == [(4,)]  # other browser tests add terms of their own
