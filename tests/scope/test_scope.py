"""Scope validation and streaming enumeration (order, completeness, keyset pagination)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from wagtail.models import Page, Site

from demo.models import (
    ArticlePage,
    Category,
    SiteBranding,
    SocialLinks,
)
from demo.models import (
    Testimonial as Quote,
)
from tests.factories import article, category, footer, home_page, index_page, locales
from wagtail_bulk_translate.errors import BulkTranslateError, ScopeError
from wagtail_bulk_translate.models import Run, Unit
from wagtail_bulk_translate.scope.definition import Scope
from wagtail_bulk_translate.scope.enumeration import Enumerator, iter_scope, site_setting_key
from wagtail_bulk_translate.scope.whole_site import (
    translatable_setting_labels,
    translatable_snippet_labels,
    whole_site_scope,
)

pytestmark = pytest.mark.django_db


# --- helpers ------------------------------------------------------------------------------------


def scoped_key(instance) -> tuple[int, str]:
    """(content type id, object id) of a model instance, as enumeration reports it."""
    if isinstance(instance, Page):
        return (instance.content_type_id, str(instance.pk))
    return (ContentType.objects.get_for_model(type(instance)).pk, str(instance.pk))


def keys(objects) -> list[tuple[int, str]]:
    return [(o.content_type_id, o.object_id) for o in objects]


def enumerate_scope(scope: Scope | dict, locale, batch_size: int = 1000) -> list:
    scope = scope if isinstance(scope, Scope) else Scope.from_json(scope)
    return list(iter_scope(scope, locale, batch_size=batch_size))


def page_roots(*ids: int) -> list[dict]:
    return [{"id": pk, "descendants": True} for pk in ids]


def ancestors_come_first(pages: list[Page], order: list[tuple[int, str]]) -> None:
    position = {k: i for i, k in enumerate(order)}
    for page in pages:
        for ancestor in page.get_ancestors():
            if scoped_key(ancestor) in position:
                assert position[scoped_key(ancestor)] < position[scoped_key(page)], (
                    f"{ancestor.title!r} is enumerated after its descendant {page.title!r}"
                )


@pytest.fixture
def tree():
    """Two page trees of the source locale (en), with sections and articles."""
    loc = locales()
    home = home_page("Home")
    news = index_page(home, "News")
    n1, n2, n3 = (article(news, f"News {i}") for i in (1, 2, 3))
    guides = index_page(home, "Guides")
    g1, g2 = (article(guides, f"Guide {i}") for i in (1, 2))
    home2 = home_page("Second home")
    blog = index_page(home2, "Blog")
    b1 = article(blog, "Blog 1")
    return SimpleNamespace(
        loc=loc,
        en=loc["en"],
        home=home,
        news=news,
        n1=n1,
        n2=n2,
        n3=n3,
        guides=guides,
        g1=g1,
        g2=g2,
        home2=home2,
        blog=blog,
        b1=b1,
    )


@pytest.fixture
def sites(tree):
    """The default site serves en; fr.localhost and de.localhost serve fr and de (SITE_LOCALES).

    No site serves es, so per-site settings are never translated into es.
    """
    default = Site.objects.get(is_default_site=True)
    fr_site = Site.objects.create(hostname="fr.localhost", port=80, root_page=tree.home)
    de_site = Site.objects.create(hostname="de.localhost", port=80, root_page=tree.home)
    return SimpleNamespace(default=default, fr=fr_site, de=de_site)


# --- order and completeness ---------------------------------------------------------------------


def test_page_subtrees_are_enumerated_in_tree_order_across_roots(tree):
    found = enumerate_scope({"pages": page_roots(tree.home.pk, tree.home2.pk)}, tree.en)
    t = tree
    expected = [t.home, t.news, t.n1, t.n2, t.n3, t.guides, t.g1, t.g2, t.home2, t.blog, t.b1]
    assert keys(found) == [scoped_key(p) for p in expected]
    assert [o.object_key for o in found] == [p.translation_key for p in expected]


def test_parents_come_before_children_whatever_order_the_roots_are_given_in(tree):
    # The editor picked the News section with its articles, then the home page alone.
    scope = {"pages": [*page_roots(tree.news.pk), {"id": tree.home.pk, "descendants": False}]}
    found = keys(enumerate_scope(scope, tree.en))
    expected = [tree.home, tree.news, tree.n1, tree.n2, tree.n3]
    assert sorted(found) == sorted(scoped_key(p) for p in expected)
    ancestors_come_first(expected, found)


def test_a_page_the_scope_names_twice_is_enumerated_once(tree):
    t = tree
    scope = {
        "pages": [*page_roots(t.home.pk), *page_roots(t.news.pk), {"id": t.n1.pk}],
        "objects": [
            ["demo.ArticlePage", str(t.n2.pk)],
            ["demo.ArticleIndexPage", str(t.guides.pk)],
        ],
    }
    found = keys(enumerate_scope(scope, t.en))
    pages = [t.home, t.news, t.n1, t.n2, t.n3, t.guides, t.g1, t.g2]
    assert sorted(found) == sorted(scoped_key(p) for p in pages)
    ancestors_come_first(pages, found)


def translate_ancestors(page, codes=("fr", "de", "es")) -> None:
    """Give every ancestor of a page a translation in these locales (as an earlier run would)."""
    for ancestor in page.get_ancestors().filter(depth__gte=2).specific():
        for code in codes:
            locale = locales()[code]
            if not ancestor.has_translation(locale):
                ancestor.copy_for_translation(locale)


def test_descendants_false_gives_the_page_alone(tree):
    found = enumerate_scope({"pages": [{"id": tree.home.pk, "descendants": False}]}, tree.en)
    assert keys(found) == [scoped_key(tree.home)]
    translate_ancestors(tree.news)
    found = enumerate_scope({"pages": [{"id": tree.news.pk, "descendants": False}]}, tree.en)
    assert keys(found) == [scoped_key(tree.news)]


def test_untranslated_ancestors_outside_the_scope_come_first_for_the_locales_missing_them(tree):
    fr, de = tree.loc["fr"], tree.loc["de"]
    tree.home.copy_for_translation(fr)
    scope = Scope(pages=[{"id": tree.n1.pk, "descendants": False}])
    found = list(iter_scope_for(scope, tree.en, [fr.pk, de.pk]))
    assert keys(found) == [scoped_key(tree.home), scoped_key(tree.news), scoped_key(tree.n1)]
    home, news, n1 = found
    assert home.target_locale_ids == {de.pk}
    assert news.target_locale_ids == {fr.pk, de.pk}
    assert n1.target_locale_ids is None


def iter_scope_for(scope, locale, target_ids, batch_size=2):
    enumerator = Enumerator(scope, locale, batch_size, target_ids)
    cursor = None
    for _batch in range(50):
        batch = enumerator.next_batch(cursor)
        yield from batch.objects
        if batch.done:
            return
        cursor = batch.cursor
    raise AssertionError("enumeration does not end")


def test_snippets_are_every_translatable_snippet_of_the_source_locale_only(tree):
    loc = tree.loc
    c1, c2 = category("Travel"), category("Food")
    c1.copy_for_translation(loc["fr"]).save()  # an existing translation: never a source
    foot = footer()
    quote = Quote.objects.create(quote="Lovely.", author="Ann")
    Quote.objects.create(quote="Charmant.", author="Luc", locale=loc["fr"])

    labels = translatable_snippet_labels()
    assert labels == ["demo.Category", "demo.FooterText", "demo.Testimonial"]
    found = enumerate_scope({"snippets": labels}, tree.en)
    assert keys(found) == [scoped_key(c1), scoped_key(c2), scoped_key(foot), scoped_key(quote)]
    assert [o.object_key for o in found] == [
        c1.translation_key,
        c2.translation_key,
        foot.translation_key,
        quote.translation_key,
    ]
    assert all(o.target_locale_ids is None for o in found)


def test_both_settings_kinds_are_enumerated(tree, sites):
    loc = tree.loc
    branding = SiteBranding.objects.create(locale=tree.en, tagline="Slow news")
    SiteBranding.objects.create(locale=loc["fr"], tagline="Nouvelles lentes")
    social = SocialLinks.objects.create(site=sites.default, newsletter_pitch="Monthly")
    SocialLinks.objects.create(site=sites.fr, newsletter_pitch="Mensuel")  # a target row

    labels = translatable_setting_labels()
    assert labels == ["demo.SiteBranding", "demo.SocialLinks"]
    found = enumerate_scope({"settings": labels}, tree.en)
    assert keys(found) == [scoped_key(branding), scoped_key(social)]
    generic, per_site = found
    assert generic.object_key == branding.translation_key
    assert generic.target_locale_ids is None
    # A per-site row only goes to the locales other sites serve (fr, de; no site serves es).
    assert per_site.target_locale_ids == {loc["fr"].pk, loc["de"].pk}
    assert per_site.object_key == site_setting_key("demo.SocialLinks", social.pk)
    # Its identity is stable across enumerations (it has no translation_key).
    again = enumerate_scope({"settings": ["demo.SocialLinks"]}, tree.en)
    assert again[0].object_key == per_site.object_key


def test_site_setting_units_only_target_locales_a_site_serves(tree, sites, start, task_queue):
    SocialLinks.objects.create(site=sites.default, newsletter_pitch="Monthly")
    run = start(
        scope={"settings": ["demo.SocialLinks"]},
        source_locale="en",
        target_locales=["fr", "de", "es"],
    )
    task_queue.run_next()  # the coordinator
    codes = set(run.units.values_list("target_locale__language_code", flat=True))
    assert codes == {"fr", "de"}


def test_snippets_and_settings_come_first_then_pages_then_explicit_objects(tree):
    quote = Quote.objects.create(quote="Lovely.", author="Ann")
    branding = SiteBranding.objects.create(locale=tree.en, tagline="Slow news")
    extra = category("Science")
    scope = {
        "objects": [["demo.HomePage", str(tree.home.pk)], ["demo.Category", str(extra.pk)]],
        "pages": [{"id": tree.home2.pk, "descendants": True}],
        "settings": ["demo.SiteBranding"],
        "snippets": ["demo.Testimonial"],
    }
    found = keys(enumerate_scope(scope, tree.en))
    assert found == [
        scoped_key(quote),
        scoped_key(branding),
        scoped_key(tree.home2),
        scoped_key(tree.blog),
        scoped_key(tree.b1),
        scoped_key(tree.home),
        scoped_key(extra),
    ]


def test_exclude_models_removes_a_page_type(tree):
    scope = {"pages": page_roots(tree.home.pk), "exclude_models": ["demo.ArticlePage"]}
    found = keys(enumerate_scope(scope, tree.en, batch_size=2))
    assert found == [scoped_key(tree.home), scoped_key(tree.news), scoped_key(tree.guides)]


def test_exclude_models_removes_a_snippet_model_and_explicit_objects_of_it(tree):
    Quote.objects.create(quote="Lovely.", author="Ann")
    travel = category("Travel")
    scope = {
        "snippets": ["demo.Category", "demo.Testimonial"],
        "objects": [["demo.Category", str(travel.pk)], ["demo.HomePage", str(tree.home2.pk)]],
        "exclude_models": ["demo.Category"],
    }
    found = enumerate_scope(scope, tree.en)
    category_ct = ContentType.objects.get_for_model(Category).pk
    assert category_ct not in {o.content_type_id for o in found}
    assert keys(found) == [scoped_key(Quote.objects.get()), scoped_key(tree.home2)]


def test_objects_of_other_locales_are_never_enumerated(tree):
    fr = tree.loc["fr"]
    # A translated tree, snippet and setting row in fr, and a stray fr page inside the en tree.
    tree.g1.copy_for_translation(fr, copy_parents=True)
    travel = category("Travel")
    travel.copy_for_translation(fr).save()
    SiteBranding.objects.create(locale=tree.en, tagline="Slow news")
    SiteBranding.objects.create(locale=fr, tagline="Nouvelles lentes")
    stray = tree.news.add_child(instance=ArticlePage(title="Article en français", locale=fr))
    assert stray.locale_id == fr.pk

    found = enumerate_scope(whole_site_scope(tree.en), tree.en, batch_size=4)
    assert found, "the whole-site scope found nothing"
    for obj in found:
        model = ContentType.objects.get_for_id(obj.content_type_id).model_class()
        instance = model._default_manager.get(pk=obj.object_id)
        assert instance.locale_id == tree.en.pk, f"{model.__name__} {instance} is not in en"
    en_pages = Page.objects.filter(locale=tree.en, depth__gte=2)
    assert set(keys(found)) >= {scoped_key(p) for p in en_pages} | {scoped_key(travel)}


def test_source_locale_is_never_a_target(tree, start):
    with pytest.raises(BulkTranslateError, match="source locale en cannot also be a target"):
        start(scope={"pages": page_roots(tree.home.pk)}, source_locale="en", target_locales=["en"])
    assert not Run.objects.exists()


def test_no_unit_pairs_an_object_with_its_own_locale(tree, task_queue, settings):
    """Even a run whose targets include its source locale (built by hand) gets no such unit."""
    from wagtail_bulk_translate.engine.coordinator import coordinate

    run = Run.objects.create(
        scope={"pages": page_roots(tree.home.pk), "snippets": ["demo.Category"]},
        source_locale=tree.en,
        translator_class="wagtail_bulk_translate.translators.pseudo.PseudoTranslator",
    )
    category("Travel")
    run.target_locales.set([tree.en, tree.loc["fr"]])
    assert coordinate(run.pk).done
    units = Unit.objects.filter(run=run)
    assert units.count() == 9
    assert not units.filter(target_locale=tree.en).exists()


# --- keyset pagination --------------------------------------------------------------------------


@pytest.fixture
def mixed_scope(tree, sites):
    """Every kind of segment: snippets, both settings kinds, two page trees, an explicit object."""
    for name in ("Travel", "Food", "Science", "Culture"):
        category(name)
    Quote.objects.create(quote="Lovely.", author="Ann")
    SiteBranding.objects.create(locale=tree.en, tagline="Slow news")
    SocialLinks.objects.create(site=sites.default, newsletter_pitch="Monthly")
    return Scope(
        pages=page_roots(tree.home.pk, tree.home2.pk),
        snippets=["demo.Category", "demo.Testimonial"],
        settings=["demo.SiteBranding", "demo.SocialLinks"],
        objects=[["demo.FooterText", str(footer().pk)]],
    )


def test_small_batches_concatenate_to_the_single_big_batch(tree, mixed_scope):
    whole = Enumerator(mixed_scope, tree.en, batch_size=10_000).next_batch(None)
    assert whole.done
    assert len(whole.objects) >= 15

    enumerator = Enumerator(mixed_scope, tree.en, batch_size=3)
    cursor, streamed, batches = None, [], 0
    while True:
        batch = enumerator.next_batch(cursor)
        batches += 1
        assert len(batch.objects) <= 3
        streamed.extend(batch.objects)
        assert batch.cursor["position"] == len(streamed)
        if batch.done:
            break
        # The cursor is stored on the run as JSON: resume from a round-tripped copy.
        cursor = json.loads(json.dumps(batch.cursor))
        assert batches < 100, "enumeration does not end"
    assert keys(streamed) == keys(whole.objects)
    assert len(set(keys(streamed))) == len(streamed), "an object was enumerated twice"
    assert batches >= len(whole.objects) // 3


def test_resuming_from_a_cursor_is_exact_when_content_changes_meanwhile(tree):
    cats = [category(name) for name in ("A", "B", "C", "D", "E", "F")]
    scope = Scope(snippets=["demo.Category"], pages=page_roots(tree.news.pk))
    everything = keys(enumerate_scope(scope, tree.en))
    enumerator = Enumerator(scope, tree.en, batch_size=3)
    first = enumerator.next_batch(None)
    assert keys(first.objects) == everything[:3]
    # Already enumerated objects are deleted: keyset pagination neither skips nor repeats.
    cats[0].delete()
    cats[1].delete()
    rest, cursor = [], first.cursor
    for _batch in range(20):
        batch = enumerator.next_batch(cursor)
        rest.extend(keys(batch.objects))
        if batch.done:
            break
        cursor = batch.cursor
    assert batch.done
    assert rest == everything[3:]


def count_batch_queries(count_queries, scope, locale, batch_size):
    list(iter_scope(scope, locale, batch_size=batch_size))  # warm caches (content types)
    enumerator = Enumerator(scope, locale, batch_size=batch_size)
    with count_queries() as ctx:
        batch = enumerator.next_batch(None)
    assert len(batch.objects) == batch_size
    return len(ctx.captured_queries)


@pytest.mark.parametrize("kind", ["pages", "snippets", "objects"])
def test_queries_per_batch_do_not_grow_with_the_batch_size(tree, count_queries, kind):
    extra = [article(tree.news, f"More news {i}") for i in range(30)]
    cats = [category(f"Category {i}") for i in range(30)]
    scope = {
        "pages": Scope(pages=page_roots(tree.home.pk)),
        "snippets": Scope(snippets=["demo.Category"]),
        "objects": Scope(
            objects=[["demo.ArticlePage", str(p.pk)] for p in extra]
            + [["demo.Category", str(c.pk)] for c in cats]
        ),
    }[kind]
    small = count_batch_queries(count_queries, scope, tree.en, 3)
    large = count_batch_queries(count_queries, scope, tree.en, 25)
    assert large <= small + 2, (
        f"{kind}: a batch of 25 objects took {large} queries, a batch of 3 took {small}"
    )


# --- validation ---------------------------------------------------------------------------------


def fr_home(t):
    return t.home.copy_for_translation(t.loc["fr"])


def fr_category(t):
    translated = category("Travel").copy_for_translation(t.loc["fr"])
    translated.save()
    return translated


INVALID = [
    pytest.param(lambda t: {}, "scope is empty", id="empty"),
    pytest.param(lambda t: {"exclude_models": ["demo.Category"]}, "scope is empty", id="only-ex"),
    pytest.param(lambda t: {"page": [t.home.pk]}, "Unknown scope keys: page", id="bad-key"),
    pytest.param(lambda t: {"snippets": ["demo.Nope"]}, "Unknown model 'demo.Nope'", id="label"),
    pytest.param(lambda t: {"snippets": ["Category"]}, "Unknown model 'Category'", id="no-app"),
    pytest.param(
        lambda t: {"pages": page_roots(t.home.pk), "exclude_models": ["demo.Nope"]},
        "Unknown model 'demo.Nope'",
        id="exclude-label",
    ),
    pytest.param(
        lambda t: {"snippets": ["auth.Group"]}, r"auth\.Group cannot be translated", id="non-tr"
    ),
    pytest.param(
        lambda t: {"objects": [["auth.Group", str(Group.objects.create(name="Eds").pk)]]},
        r"auth\.Group cannot be translated",
        id="non-tr-object",
    ),
    pytest.param(
        lambda t: {"settings": ["demo.Category"]}, "not a settings model", id="not-setting"
    ),
    pytest.param(lambda t: {"pages": page_roots(999_999)}, "999999.* does not exist", id="no-page"),
    pytest.param(
        lambda t: {"objects": [["demo.Category", "999999"]]},
        r"demo\.Category 999999 does not exist",
        id="no-object",
    ),
    pytest.param(
        lambda t: {"objects": [["demo.Category", "abc"]]}, "abc", id="object-pk-not-a-number"
    ),
    pytest.param(lambda t: {"pages": page_roots("abc")}, "abc", id="page-id-not-a-number"),
    pytest.param(
        lambda t: {"pages": page_roots(fr_home(t).pk)}, "not in the source locale", id="fr-page"
    ),
    pytest.param(
        lambda t: {"objects": [["demo.Category", str(fr_category(t).pk)]]},
        "not in the source locale",
        id="fr-object",
    ),
]


@pytest.mark.parametrize(("make_scope", "message"), INVALID)
def test_invalid_scopes_are_refused_with_a_clear_message(
    tree, start, task_queue, make_scope, message
):
    scope = make_scope(tree)
    with pytest.raises(ScopeError, match=message):
        start(scope=scope, source_locale="en", target_locales=["fr", "de"])
    assert not Run.objects.exists()
    assert not Unit.objects.exists()
    assert task_queue.plugin_names() == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target_locales": ["xx"]}, "Unknown locale 'xx'"),
        ({"target_locales": []}, "at least one target locale"),
        ({"source_locale": "zz"}, "Unknown locale 'zz'"),
        ({"canary_size": 0}, "at least one unit"),
        ({"mode": "everything"}, "Unknown mode 'everything'"),
    ],
)
def test_bad_run_options_are_refused_with_a_clear_message(tree, start, task_queue, kwargs, message):
    options = {
        "scope": {"pages": page_roots(tree.home.pk)},
        "source_locale": "en",
        "target_locales": ["fr"],
        **kwargs,
    }
    with pytest.raises(BulkTranslateError, match=message):
        start(**options)
    assert not Run.objects.exists()
    assert task_queue.plugin_names() == []


def test_a_valid_scope_starts_a_run_and_queues_only_its_coordinator(tree, start, task_queue):
    run = start(
        scope={"pages": page_roots(tree.home.pk)}, source_locale="en", target_locales=["fr"]
    )
    assert Run.objects.get() == run
    assert task_queue.plugin_names() == ["coordinate_run"]
    assert not Unit.objects.exists()
