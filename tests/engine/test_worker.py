"""Behaviour of a worker run, driven through the public path.

Each test builds content, starts a run with ``start_run`` (as the admin and the command line
do), drains the task queue in-process and asserts on what the database then holds: the target
objects, the unit rows and the translator's calls. The translator is the recording
pseudo-localizer of ``tests/translator_doubles.py``, so every expected value is exact:
``pseudo_localize(source, code)``.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from django.utils.text import slugify
from wagtail.models import Locale, Page, Revision, Site
from wagtail_localize.models import StringSegment, StringTranslation, Translation

from demo.models import ArticlePage, Category, SiteBranding, SocialLinks
from tests import factories as f
from tests.factories import subtree
from wagtail_bulk_translate.models import Run
from wagtail_bulk_translate.translators.pseudo import accent_text_nodes, pseudo_localize

pytestmark = pytest.mark.django_db

MANUAL = StringTranslation.TRANSLATION_TYPE_MANUAL
MACHINE = StringTranslation.TRANSLATION_TYPE_MACHINE


# --- helpers ---------------------------------------------------------------------------------


@pytest.fixture
def translate(start, task_queue, recording_translator):
    """Start a run like an editor would, let the workers finish it, return the finished run."""

    def _translate(scope, targets=("fr",), *, mode="changed", publish_policy="publish") -> Run:
        run = start(
            scope=scope,
            source_locale="en",
            target_locales=list(targets),
            mode=mode,
            publish_policy=publish_policy,
        )
        task_queue.drain()
        run.refresh_from_db()
        return run

    return _translate


@pytest.fixture
def units_per_claim(settings, recording_translator):
    def _set(count: int) -> None:
        settings.WAGTAIL_BULK_TRANSLATE = {
            **settings.WAGTAIL_BULK_TRANSLATE,
            "UNITS_PER_CLAIM": count,
        }

    return _set


def locale(code: str) -> Locale:
    return Locale.objects.get(language_code=code)


def page_in(page: Page, code: str) -> Page:
    """The (non-alias) translation of a page in a locale, as its specific class."""
    return Page.objects.get(
        translation_key=page.translation_key, locale__language_code=code, alias_of__isnull=True
    ).specific


def snippet_in(obj, code: str):
    return type(obj).objects.get(translation_key=obj.translation_key, locale__language_code=code)


def fresh(page: Page) -> Page:
    return Page.objects.get(pk=page.pk).specific


def key(obj) -> str:
    """How unit_outcomes names a source object: "model:pk"."""
    return f"{obj._meta.model_name}:{obj.pk}"


def unit_outcomes(run: Run) -> dict[tuple[str, str], tuple[str, str]]:
    """{(source object key, target locale code): (status, error_code)} for every unit."""
    return {
        (f"{u.content_type.model}:{u.object_id}", u.target_locale.language_code): (
            u.status,
            u.error_code,
        )
        for u in run.units.select_related("target_locale", "content_type")
    }


def assert_translated_html(source_html: str, target_html: str, code: str) -> None:
    """Same block elements, each one's text pseudo-localized as one string."""
    source = BeautifulSoup(source_html, "html.parser").find_all(recursive=False)
    target = BeautifulSoup(target_html, "html.parser").find_all(recursive=False)
    assert [t.name for t in target] == [s.name for s in source], target_html
    for s, t in zip(source, target, strict=True):
        assert t.get_text() == pseudo_localize(s.get_text(), code), target_html


def assert_translated_stream(source, target, code: str, path: str = "body") -> None:
    """Walk raw StreamField JSON side by side: same blocks, same ids, every text translated,
    every URL untouched."""
    if isinstance(source, dict) and {"type", "value"} <= set(source):
        assert isinstance(target, dict), path
        assert target["type"] == source["type"], path
        assert target.get("id") == source.get("id"), path
        assert_translated_stream(source["value"], target["value"], code, f"{path}.{source['type']}")
    elif isinstance(source, dict):
        assert isinstance(target, dict), path
        assert set(target) == set(source), path
        for key in source:
            assert_translated_stream(source[key], target[key], code, f"{path}.{key}")
    elif isinstance(source, list):
        assert isinstance(target, list), path
        assert len(target) == len(source), path
        for index, (s, t) in enumerate(zip(source, target, strict=True)):
            assert_translated_stream(s, t, code, f"{path}[{index}]")
    elif path.endswith(".url"):
        assert target == source, f"{path}: a URL must be copied unchanged"
    elif isinstance(source, str) and source.startswith("<"):
        assert_translated_html(source, target, code)
    else:
        assert target == pseudo_localize(source, code), path


def small_site() -> dict[str, Page]:
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    return {"home": home, "news": news, "story": f.article(news, "Harbour news")}


def magazine() -> dict[str, Page]:
    """home > news > (first, second), home > guides > (third)."""
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    guides = f.index_page(home, "Guides")
    return {
        "home": home,
        "news": news,
        "guides": guides,
        "first": f.article(news, "First story"),
        "second": f.article(news, "Second story"),
        "third": f.article(guides, "Third story"),
    }


# --- 1. rich text ----------------------------------------------------------------------------


def test_rich_text_keeps_formatting_and_links_and_translates_the_text(translate):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    intro = (
        "<p>Read <b>bold words</b> and <i>italic words</i>, visit "
        '<a href="https://example.org/guide">our guide</a> or '
        f'<a linktype="page" id="{news.pk}">the news</a>.</p>'
        "<p>A second paragraph.</p>"
    )
    home.intro = intro
    home.save_revision().publish()

    run = translate(subtree(home), ("fr", "de"))

    assert run.status == "succeeded"
    for code in ("fr", "de"):
        target = page_in(home, code).intro
        assert_translated_html(intro, target, code)
        soup = BeautifulSoup(target, "html.parser")
        assert [b.get_text() for b in soup.find_all("b")] == [accent_text_nodes("bold words")]
        assert [i.get_text() for i in soup.find_all("i")] == [accent_text_nodes("italic words")]
        links = soup.find_all("a")
        assert [(a.attrs, a.get_text()) for a in links] == [
            ({"href": "https://example.org/guide"}, accent_text_nodes("our guide")),
            ({"linktype": "page", "id": str(news.pk)}, accent_text_nodes("the news")),
        ]
        assert "Read" not in target and "bold words" not in target


# --- 2. StreamField --------------------------------------------------------------------------


def nested_body() -> list[dict]:
    return [
        f.block("heading", "Welcome aboard"),
        f.block(
            "paragraph", f.rich('Trains <b>leave</b> <a href="https://example.org/t">daily</a>.')
        ),
        f.block("quote", {"quote": "The journey matters.", "attribution": "A conductor"}),
        f.block(
            "section",
            {
                "heading": "Practical information",
                "content": [
                    f.block("paragraph", f.rich("Bring <i>warm</i> clothes.")),
                    f.block("quote", {"quote": "It gets cold at night.", "attribution": ""}),
                    f.block("facts", f.items(["Two stations", "Four platforms"])),
                ],
                "cards": f.items(
                    [
                        {
                            "heading": "Tickets",
                            "body": f.rich("Buy them <b>online</b>."),
                            "link": {"text": "Book now", "url": "https://example.org/book"},
                        },
                        {
                            "heading": "Timetable",
                            "body": f.rich("Updated every week."),
                            "link": {"text": "See times", "url": "https://example.org/times"},
                        },
                    ]
                ),
            },
        ),
        f.block(
            "links",
            f.items(
                [
                    {"text": "Visitor information", "url": "https://example.org/visit"},
                    {"text": "Station map", "url": "https://example.org/map"},
                ]
            ),
        ),
    ]


def test_streamfield_structure_is_kept_and_every_text_translated(translate, recording_translator):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    story = f.article(news, "Night train", body=nested_body())

    run = translate(subtree(home))

    assert run.status == "succeeded"
    target = page_in(story, "fr")
    assert_translated_stream(list(fresh(story).body.raw_data), list(target.body.raw_data), "fr")
    # The StreamValue loads through the block definitions, not just as JSON.
    assert [child.block_type for child in target.body] == [
        "heading",
        "paragraph",
        "quote",
        "section",
        "links",
    ]
    assert target.body[4].value[1]["url"] == "https://example.org/map"
    urls = {"https://example.org/t", "https://example.org/book", "https://example.org/visit"}
    assert not urls & set(recording_translator.texts_sent())


# --- 3. non-prose plain text -----------------------------------------------------------------


def test_non_prose_fields_are_copied_unchanged_and_never_sent(translate, recording_translator):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    values = {
        "coordinates": "48.8566, 2.3522",
        "contact_email": "desk@northwind.example",
        "reference_code": "NWJ-2026-0042",
    }
    story = f.article(news, "Harbour news", summary="The harbour reopens.", **values)

    run = translate(subtree(home))

    assert run.status == "succeeded"
    target = page_in(story, "fr")
    for name, value in values.items():
        assert getattr(target, name) == value, name
    assert target.summary == pseudo_localize("The harbour reopens.", "fr")
    sent = recording_translator.texts_sent()
    assert "The harbour reopens." in sent
    for value in values.values():
        assert not [text for text in sent if value in text], value


# --- 4. parents before children --------------------------------------------------------------


def test_new_subtree_is_created_under_its_translated_parents_with_a_sound_tree(
    translate, units_per_claim
):
    units_per_claim(3)  # the tree spans several claims
    pages = magazine()
    home = pages["home"]

    run = translate(subtree(home), ("fr", "de"))

    assert run.status == "succeeded", unit_outcomes(run)
    root = Page.get_first_root_node()
    for code in ("fr", "de"):
        for name, source in pages.items():
            target = page_in(source, code)
            expected_parent = root if source.pk == home.pk else page_in(source.get_parent(), code)
            assert target.get_parent().pk == expected_parent.pk, (code, name)
            assert target.depth == source.depth
            assert target.numchild == fresh(source).numchild == target.get_children().count()
            assert target.title == pseudo_localize(source.title, code)
            assert target.slug == slugify(target.title, allow_unicode=True), target.slug
            assert target.slug != source.slug
            assert target.live
        # Nothing else was created in the locale: no untranslated alias copies of a parent.
        assert Page.objects.filter(locale__language_code=code).count() == len(pages)
    assert Page.find_problems() == ([], [], [], [], [])


def test_whole_demo_site_translates_into_a_sound_tree(translate, units_per_claim):
    from demo.content import seed_demo_content
    from wagtail_bulk_translate.api import whole_site_scope

    units_per_claim(4)
    seed_demo_content(pages=14)
    source_pages = list(
        Page.objects.filter(locale__language_code="en", depth__gt=1, alias_of__isnull=True)
    )

    run = translate(whole_site_scope(locale("en")).to_json(), ("fr",), publish_policy="mirror")

    assert run.status == "succeeded", {
        k: v for k, v in unit_outcomes(run).items() if v[0] != "succeeded"
    }
    targets = {
        p.translation_key: p
        for p in Page.objects.filter(locale__language_code="fr", alias_of__isnull=True)
    }
    assert set(targets) == {p.translation_key for p in source_pages}
    for source in source_pages:
        target = targets[source.translation_key].specific
        source = source.specific
        assert target.title == pseudo_localize(source.title, "fr")
        assert target.live == source.live
        if source.depth > 2:
            assert target.get_parent().translation_key == source.get_parent().translation_key
        if isinstance(source, ArticlePage):
            # The run translates live content (the default), not unpublished drafts.
            assert target.summary == pseudo_localize(source.summary, "fr")
            assert target.coordinates == source.coordinates
    drafts = [p for p in source_pages if p.has_unpublished_changes]
    assert drafts, "the demo content has pages with unpublished drafts"
    assert Page.find_problems() == ([], [], [], [], [])


def test_parents_outside_the_scope_are_never_published_untranslated(translate):
    pages = small_site()
    story = pages["story"]

    run = translate({"pages": [{"id": story.pk, "descendants": False}]})

    assert run.status == "succeeded"
    target = page_in(story, "fr")
    assert target.title == pseudo_localize("Harbour news", "fr")
    ancestors = list(target.get_ancestors().filter(depth__gt=1).specific())
    assert [p.translation_key for p in ancestors] == [
        pages["home"].translation_key,
        pages["news"].translation_key,
    ]
    for copy in ancestors:
        source = Page.objects.get(translation_key=copy.translation_key, locale__language_code="en")
        assert not (copy.live and copy.title == source.title), (
            f"{source.title!r} was published untranslated in fr"
        )
    assert Page.find_problems() == ([], [], [], [], [])


# --- 5. snippets and settings ----------------------------------------------------------------


def test_snippets_are_translated_and_published(translate):
    travel = f.category("Travel", "Trips and journeys.")
    food = f.category("Food", "Markets and recipes.")
    footer = f.footer("Independent <b>since</b> 1999.")

    run = translate({"snippets": ["demo.Category", "demo.FooterText"]}, ("fr", "de"))

    assert run.status == "succeeded"
    assert run.unit_counts()["succeeded"] == 6
    for code in ("fr", "de"):
        for source in (travel, food):
            target = snippet_in(source, code)
            assert target.name == pseudo_localize(source.name, code)
            assert target.description == pseudo_localize(source.description, code)
        target = snippet_in(footer, code)
        assert target.live
        assert target.live_revision_id == target.latest_revision_id is not None
        assert_translated_html(footer.body, target.body, code)
        assert "<b>" in target.body
    assert Category.objects.count() == 6


def test_draftable_snippet_is_saved_as_a_draft_under_the_draft_policy(translate):
    footer = f.footer("Independent since 1999.")

    run = translate({"snippets": ["demo.FooterText"]}, publish_policy="draft")

    assert run.status == "succeeded"
    target = snippet_in(footer, "fr")
    assert not target.live
    assert target.has_unpublished_changes
    # Never published: no live revision (least of all the source's), no publication dates.
    assert target.live_revision_id is None
    assert target.first_published_at is None and target.last_published_at is None
    assert target.latest_revision.object_id == str(target.pk)
    draft = target.latest_revision.as_object()
    assert_translated_html(footer.body, draft.body, "fr")


def test_pages_point_to_the_snippets_translated_in_the_same_run(translate):
    pages = small_site()
    travel = f.category("Travel")
    story = fresh(pages["story"])
    story.category = travel
    story.save_revision().publish()

    run = translate({**subtree(pages["home"]), "snippets": ["demo.Category"]}, ("fr", "de"))

    assert run.status == "succeeded"
    for code in ("fr", "de"):
        assert page_in(story, code).category_id == snippet_in(travel, code).pk


def test_pages_translated_before_their_snippet_point_to_it_once_it_is_translated(translate):
    pages = small_site()
    travel = f.category("Travel")
    story = fresh(pages["story"])
    story.category = travel
    story.save_revision().publish()
    assert translate(subtree(pages["home"])).status == "succeeded"
    assert page_in(story, "fr").category_id == travel.pk  # falls back to the English one

    run = translate({**subtree(pages["home"]), "snippets": ["demo.Category"]})

    assert run.status == "succeeded"
    assert page_in(story, "fr").category_id == snippet_in(travel, "fr").pk


def test_translatable_generic_setting_gets_one_row_per_locale(translate):
    f.locales()
    branding = SiteBranding.objects.create(
        locale=locale("en"),
        tagline="Slow journalism from the coast",
        cookie_notice=f.rich("We use <b>one</b> cookie."),
    )

    run = translate({"settings": ["demo.SiteBranding"]}, ("fr", "de"))

    assert run.status == "succeeded"
    assert SiteBranding.objects.count() == 3
    for code in ("fr", "de"):
        row = SiteBranding.objects.get(locale__language_code=code)
        assert row.translation_key == branding.translation_key
        assert row.tagline == pseudo_localize(branding.tagline, code)
        assert_translated_html(branding.cookie_notice, row.cookie_notice, code)
    assert SiteBranding.objects.get(pk=branding.pk).tagline == "Slow journalism from the coast"


def test_site_setting_fills_the_row_of_the_site_serving_the_target_locale(
    translate, recording_translator
):
    home = f.home_page("Home")
    default_site = Site.objects.get(is_default_site=True)
    assert default_site.root_page.locale.language_code == "en"
    fr_site = Site.objects.create(hostname="fr.localhost", port=80, root_page=home)
    source = SocialLinks.objects.create(
        site=default_site,
        newsletter_pitch="One letter a month, no noise.",
        contact_heading="Write to the editors",
        analytics_id="NW-00042",
        mastodon_url="https://example.social/@northwind",
    )
    SocialLinks.objects.create(site=fr_site, analytics_id="FR-TRACKER-7")

    run = translate({"settings": ["demo.SocialLinks"]})

    assert run.status == "succeeded", unit_outcomes(run)
    assert run.units.count() == 1
    row = SocialLinks.objects.get(site=fr_site)
    assert row.newsletter_pitch == pseudo_localize(source.newsletter_pitch, "fr")
    assert row.contact_heading == pseudo_localize(source.contact_heading, "fr")
    assert row.analytics_id == "FR-TRACKER-7"  # excluded by EXCLUDE_FIELDS: never touched
    source.refresh_from_db()
    assert source.newsletter_pitch == "One letter a month, no noise."
    assert source.analytics_id == "NW-00042"
    sent = recording_translator.texts_sent()
    assert "NW-00042" not in sent and "FR-TRACKER-7" not in sent
    assert source.mastodon_url not in sent


# --- 6. changed mode -------------------------------------------------------------------------


def test_changed_mode_skips_unchanged_units_and_retranslates_only_edited_pages(
    translate, recording_translator
):
    pages = magazine()
    travel = f.category("Travel")
    scope = {**subtree(pages["home"]), "snippets": ["demo.Category"]}
    first = translate(scope, ("fr", "de"))
    assert first.status == "succeeded"
    assert first.unit_counts()["succeeded"] == 14

    revisions = Revision.objects.count()
    latest = {p.pk: p.latest_revision_id for p in Page.objects.exclude(locale__language_code="en")}
    strings = list(StringTranslation.objects.order_by("pk").values_list("pk", "data"))
    recording_translator.reset()

    again = translate(scope, ("fr", "de"))

    assert again.status == "succeeded"
    outcomes = unit_outcomes(again)
    assert len(outcomes) == 14
    assert set(outcomes.values()) == {("skipped", "unchanged")}
    assert recording_translator.calls == []
    assert Revision.objects.count() == revisions
    assert {
        p.pk: p.latest_revision_id for p in Page.objects.exclude(locale__language_code="en")
    } == latest
    assert list(StringTranslation.objects.order_by("pk").values_list("pk", "data")) == strings
    assert again.billed_characters == 0 and again.strings_translated == 0

    edited = fresh(pages["second"])
    edited.title = "Second story, revised"
    edited.save_revision().publish()

    third = translate(scope, ("fr", "de"))

    outcomes = unit_outcomes(third)
    assert len(outcomes) == 14
    changed = {k: v for k, v in outcomes.items() if k[0] == key(edited)}
    assert changed == {
        (key(edited), "fr"): ("succeeded", ""),
        (key(edited), "de"): ("succeeded", ""),
    }
    others = {v for k, v in outcomes.items() if k[0] != key(edited)}
    assert others == {("skipped", "unchanged")}
    for code in ("fr", "de"):
        assert recording_translator.texts_sent(code) == ["Second story, revised"]
        assert page_in(edited, code).title == pseudo_localize("Second story, revised", code)
    assert snippet_in(travel, "fr").name == pseudo_localize("Travel", "fr")


# --- 7. manual translations ------------------------------------------------------------------


def make_manual(page: Page, path: str, code: str, text: str) -> StringTranslation:
    """An editor fixes one string in wagtail-localize's editor and saves the translation."""
    segment = StringSegment.objects.select_related("context", "source").get(
        source__object_id=page.translation_key, context__path=path
    )
    translation = StringTranslation.objects.get(
        translation_of_id=segment.string_id, context=segment.context, locale__language_code=code
    )
    translation.data = text
    translation.translation_type = MANUAL
    translation.tool_name = ""
    translation.save()
    Translation.objects.get(source=segment.source, target_locale__language_code=code).save_target(
        publish=True
    )
    return translation


@pytest.mark.parametrize("mode", ["changed", "refresh", "overwrite"])
def test_manual_string_translations_survive_except_in_overwrite_mode(
    translate, recording_translator, mode
):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    story = f.article(news, "Harbour news", summary="The harbour reopens in spring.")
    assert translate(subtree(home)).status == "succeeded"
    manual_text = "Le port rouvre au printemps (relu par Claire)."
    manual = make_manual(story, "summary", "fr", manual_text)
    assert page_in(story, "fr").summary == manual_text
    # The source changes too, so even "changed" mode has this page to translate.
    edited = fresh(story)
    edited.title = "Harbour news, updated"
    edited.save_revision().publish()
    recording_translator.reset()

    run = translate(subtree(home), mode=mode)

    assert unit_outcomes(run)[(key(story), "fr")] == ("succeeded", "")
    target = page_in(story, "fr")
    assert target.title == pseudo_localize("Harbour news, updated", "fr")
    manual.refresh_from_db()
    if mode == "overwrite":
        assert target.summary == pseudo_localize("The harbour reopens in spring.", "fr")
        assert manual.translation_type == MACHINE
        assert manual.data == target.summary
    else:
        assert target.summary == manual_text
        assert manual.translation_type == MANUAL
        assert manual.data == manual_text
        assert "The harbour reopens in spring." not in recording_translator.texts_sent()


# --- 8. validation errors --------------------------------------------------------------------


def test_validation_error_fails_only_its_unit_with_a_readable_reason(
    translate, recording_translator
):
    pages = magazine()
    broken = pages["second"]
    recording_translator.overrides[broken.title] = lambda text: "Ŵ" * 300

    run = translate(subtree(pages["home"]))

    assert run.status == "partial"
    unit = run.units.get(object_id=str(broken.pk))
    assert (unit.status, unit.error_code) == ("failed", "validation_error")
    # An editor can act on it: which field, and what is wrong with it.
    assert "title" in unit.error_message.lower(), unit.error_message
    assert "at most 255 characters" in unit.error_message
    for jargon in ("Traceback", "error_dict", "AttributeError", "ValidationError"):
        assert jargon not in unit.error_message
    # Never written half-done: no target at all for the failing page.
    assert not Page.objects.filter(
        translation_key=broken.translation_key, locale__language_code="fr"
    ).exists()
    good = {k: v for k, v in unit_outcomes(run).items() if k[0] != key(broken)}
    assert len(good) == 5
    assert set(good.values()) == {("succeeded", "")}
    assert run.unit_counts() == {
        "pending": 0,
        "running": 0,
        "succeeded": 5,
        "skipped": 0,
        "failed": 1,
        "cancelled": 0,
    }
    assert page_in(pages["first"], "fr").title == pseudo_localize("First story", "fr")


# --- 9. publish policies ---------------------------------------------------------------------


def test_draft_policy_creates_targets_that_are_not_live(translate):
    pages = small_site()

    run = translate(subtree(pages["home"]), publish_policy="draft")

    assert run.status == "succeeded"
    for source in pages.values():
        target = page_in(source, "fr")
        assert not target.live
        assert target.has_unpublished_changes
        assert target.live_revision_id is None
        assert target.latest_revision.as_object().title == pseudo_localize(source.title, "fr")
    assert not Page.objects.filter(locale__language_code="fr", live=True).exists()


def test_draft_policy_keeps_the_live_content_of_an_existing_target(translate):
    pages = small_site()
    home, story = pages["home"], pages["story"]
    assert translate(subtree(home)).status == "succeeded"
    before = page_in(story, "fr")
    live_title = pseudo_localize("Harbour news", "fr")
    assert before.live and before.title == live_title

    revisions = Revision.page_revisions.filter(object_id=str(before.pk)).count()
    edited = fresh(story)
    edited.title = "Harbour news, updated"
    edited.save_revision().publish()
    run = translate(subtree(home), publish_policy="draft")

    assert unit_outcomes(run)[(key(story), "fr")] == ("succeeded", "")
    after = page_in(story, "fr")
    assert after.live
    assert after.title == live_title  # the page row is what visitors see
    assert after.live_revision_id == before.live_revision_id
    assert after.latest_revision_id != before.latest_revision_id
    assert after.has_unpublished_changes
    draft = after.latest_revision.as_object()
    assert draft.title == pseudo_localize("Harbour news, updated", "fr")
    assert Revision.page_revisions.filter(object_id=str(after.pk)).count() == revisions + 1


def test_publish_run_after_a_draft_run_publishes_without_translating_again(
    translate, recording_translator
):
    pages = small_site()
    assert translate(subtree(pages["home"]), publish_policy="draft").status == "succeeded"
    assert recording_translator.texts_sent()
    recording_translator.reset()

    run = translate(subtree(pages["home"]), publish_policy="publish")

    assert run.status == "succeeded"
    assert set(unit_outcomes(run).values()) == {("succeeded", "")}
    assert recording_translator.calls == []
    for source in pages.values():
        target = page_in(source, "fr")
        assert target.live and not target.has_unpublished_changes
        assert target.title == pseudo_localize(source.title, "fr")


def test_publish_policy_makes_targets_live(translate):
    pages = small_site()

    run = translate(subtree(pages["home"]), publish_policy="publish")

    assert run.status == "succeeded"
    for source in pages.values():
        target = page_in(source, "fr")
        assert target.live
        assert not target.has_unpublished_changes
        assert target.live_revision_id == target.latest_revision_id is not None
        assert target.title == pseudo_localize(source.title, "fr")


def test_mirror_policy_follows_the_source_live_status(translate):
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    live_story = f.article(news, "Published story")
    draft_story = f.article(news, "Unpublished story", live=False, has_unpublished_changes=True)
    draft_story.save_revision()
    live_footer = f.footer("Independent since 1999.")
    draft_footer = f.footer("Coming soon.", live=False)

    run = translate({**subtree(home), "snippets": ["demo.FooterText"]}, publish_policy="mirror")

    assert run.status == "succeeded", unit_outcomes(run)
    assert page_in(home, "fr").live
    assert page_in(news, "fr").live
    published = page_in(live_story, "fr")
    assert published.live
    assert published.title == pseudo_localize("Published story", "fr")
    unpublished = page_in(draft_story, "fr")
    assert not unpublished.live
    assert unpublished.live_revision_id is None
    draft = unpublished.latest_revision.as_object()
    assert draft.title == pseudo_localize("Unpublished story", "fr")
    assert snippet_in(live_footer, "fr").live
    assert not snippet_in(draft_footer, "fr").live


# --- 10. translation memory ------------------------------------------------------------------


@pytest.mark.parametrize("claim_size", [1, 10], ids=["one-object-per-claim", "one-claim"])
def test_repeated_text_is_sent_once_per_locale(
    translate, recording_translator, units_per_claim, claim_size
):
    units_per_claim(claim_size)
    shared = "Opening hours may change on public holidays."
    home = f.home_page("Home")
    news = f.index_page(home, "News")
    stories = [
        f.article(
            news,
            title,
            summary=shared,
            body=[
                f.block("heading", "Practical information"),
                f.block("paragraph", f.rich(shared)),
            ],
        )
        for title in ("Harbour news", "Market news")
    ]

    run = translate(subtree(home), ("fr", "de"))

    assert run.status == "succeeded"
    for code in ("fr", "de"):
        sent = recording_translator.texts_sent(code)
        assert sent.count(shared) == 1
        assert sent.count("Practical information") == 1
        assert len(sent) == len(set(sent)), sent
        for story in stories:
            target = page_in(story, code)
            assert target.summary == pseudo_localize(shared, code)
            assert target.body.raw_data[1]["value"] == f"<p>{pseudo_localize(shared, code)}</p>"
