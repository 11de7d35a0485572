"""In a real browser, as the demo's editor (not a superuser): a run whose translator ignores a
glossary term leaves the page in the review queue as a draft; the editor finds it and accepts it,
which publishes it; on another, corrects the term and translates it again in one flow."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.flows import wait_for_run
from tests.e2e.helpers import manage

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

# The glossary wants this target, which the pseudo translator never writes.
TARGET_TERM = "ReviewedTerm"
ADD_TERM = """
from wagtail.models import Locale, Page
from wagtail_bulk_translate.models import GlossaryTerm, GlossaryTranslation
page = Page.objects.get(pk={page_id})
term, _ = GlossaryTerm.objects.get_or_create(source_locale=page.locale, source_term=page.title)
GlossaryTranslation.objects.update_or_create(
    term=term, target_locale=Locale.objects.get(language_code="fr"),
    defaults={{"target_term": "{target}"}},
)
"""


def flagged_page_id(live_site) -> int:
    """The English page whose title the glossary flags (the same one each time)."""
    [(page_id,)] = live_site.query(
        "SELECT p.id FROM wagtailcore_page p JOIN wagtailcore_locale l ON p.locale_id = l.id "
        "WHERE l.language_code = 'en' AND p.depth > 3 ORDER BY p.path DESC LIMIT 1"
    )
    return page_id


def flagged_run(live_site) -> tuple[int, int]:
    """A publishing run of one page into French, its title a glossary term: (run, unit)."""
    page_id = flagged_page_id(live_site)
    manage(live_site.env, "shell", "-c", ADD_TERM.format(page_id=page_id, target=TARGET_TERM))
    manage(
        live_site.env,
        *("bulk_translate", "start", "--page", str(page_id), "--locales", "fr"),
        *("--publish", "publish", "--mode", "overwrite"),
    )
    run_id, _status = live_site.latest_run()
    assert wait_for_run(live_site, run_id) == "succeeded"
    [(unit_id,)] = live_site.query(
        "SELECT u.id FROM wagtail_bulk_translate_unit u JOIN wagtail_bulk_translate_unitreview r "
        "ON r.unit_id = u.id WHERE u.run_id = ? AND r.state = 'pending'",
        run_id,
    )
    return run_id, unit_id


def target_live(live_site, unit_id: int) -> bool:
    [(live,)] = live_site.query(
        "SELECT p.live FROM wagtailcore_page p JOIN wagtail_bulk_translate_unit u "
        "ON p.id = CAST(u.target_object_id AS INTEGER) WHERE u.id = ?",
        unit_id,
    )
    return bool(live)


def test_editor_finds_a_flagged_unit_and_accepts_it(editor_page, live_site, screenshot):
    run_id, unit_id = flagged_run(live_site)
    assert not target_live(live_site, unit_id)  # a draft, though the run publishes
    page = editor_page

    page.goto(live_site.url(f"/admin/bulk-translate/{run_id}/"))
    page.locator("[data-bt-review-count]").get_by_role("link").click()
    page.wait_for_url(re.compile(rf"/admin/bulk-translate/review/\?run={run_id}$"))
    # The header names the page (it read "Home", the last breadcrumb, before).
    expect(page.locator("header h1").first).to_contain_text("Translations to review")
    review = page.locator(f'[data-bt-review="{unit_id}"]')
    expect(review.locator("[data-bt-review-flags]")).to_contain_text(TARGET_TERM)
    expect(review.locator("[data-bt-review-edit]")).to_be_visible()
    screenshot(page, "review_queue")
    review.locator('[data-bt-review-action="accept"]').click()

    expect(page.get_by_text(f"Unit #{unit_id}: Accepted and published.")).to_be_visible()
    expect(page.locator(f'[data-bt-review="{unit_id}"]')).to_have_count(0)
    assert target_live(live_site, unit_id)
    assert live_site.query(
        "SELECT state FROM wagtail_bulk_translate_unitreview WHERE unit_id = ?", unit_id
    ) == [("accepted",)]


def test_editor_corrects_the_term_and_translates_again_in_one_flow(
    editor_page, live_site, screenshot
):
    run_id, unit_id = flagged_run(live_site)
    page = editor_page
    page.goto(live_site.url(f"/admin/bulk-translate/review/?run={run_id}"))
    page.locator(f'[data-bt-review="{unit_id}"]').locator("[data-bt-review-add-term]").click()

    expect(page.locator("#id_target_term")).to_have_value(TARGET_TERM)  # the flagged term's
    page.fill("#id_target_term", "CorrectedTerm")
    screenshot(page, "review_add_term")
    page.locator("[data-bt-review-term-submit]").click()

    page.wait_for_url(re.compile(rf"/admin/bulk-translate/review/\?run={run_id}$"))
    expect(page.get_by_text("is in the glossary; unit #")).to_be_visible()
    [(state, new_run)] = live_site.query(
        "SELECT state, retranslated_by_id FROM wagtail_bulk_translate_unitreview WHERE unit_id = ?",
        unit_id,
    )
    assert state == "retranslated"
    assert wait_for_run(live_site, new_run) == "succeeded"
    assert live_site.query(
        "SELECT t.target_term FROM wagtail_bulk_translate_glossarytranslation t "
        "JOIN wagtail_bulk_translate_glossaryterm g ON g.id = t.term_id "
        "JOIN wagtailcore_locale l ON l.id = t.target_locale_id WHERE l.language_code = 'fr' "
        "AND g.source_term = (SELECT title FROM wagtailcore_page WHERE id = ?)",
        flagged_page_id(live_site),
    ) == [("CorrectedTerm",)]
