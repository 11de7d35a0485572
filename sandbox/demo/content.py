"""A deterministic generator of realistic demo content.

A magazine of a few hundred pages in English: a home page, article indexes with articles, and
landing pages with FAQs; rich text with internal and external links and inline formatting;
nested StreamFields; sentences repeated across pages (translated once thanks to translation
memory); non-prose plain-text fields; pages with unpublished drafts, a locked page and a very
long title; translatable snippets and both kinds of translatable settings.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from wagtail.models import Locale, Page, Site

from .models import (
    ArticleIndexPage,
    ArticlePage,
    Category,
    FooterText,
    HomePage,
    LandingPage,
    LandingPageFAQ,
    SiteBranding,
    SocialLinks,
    Testimonial,
)

LOCALES = ("en", "fr", "de", "es")
DEFAULT_PORT = 8000  # `make serve` listens there unless given PORT=
SECTIONS = ("News", "Guides", "Field notes")
LANDING_PAGES = ("About us", "Contact", "Newsletter", "Careers", "Press")
CATEGORIES = (
    ("Travel", "Journeys near and far, on foot and by train."),
    ("Food", "Recipes, markets and the people who cook for a living."),
    ("Science", "Research explained without the jargon."),
    ("Culture", "Books, films, music and the places they come from."),
    ("Work", "How people build careers and companies."),
)
SUBJECTS = (
    "The old harbour",
    "A small bakery",
    "The night train",
    "Our newest volunteers",
    "The city library",
    "A mountain village",
    "The river festival",
    "A family vineyard",
    "The weekly market",
    "A forgotten garden",
    "The coastal path",
    "A community workshop",
)
VERBS = (
    "reopens after",
    "celebrates",
    "prepares for",
    "looks back on",
    "changes course after",
    "welcomes visitors during",
    "learns from",
)
OBJECTS = (
    "a long winter",
    "ten years of work",
    "the summer season",
    "a record harvest",
    "a difficult year",
    "the first snow",
    "an unexpected visit",
)
SENTENCES = (
    "Visitors arrive early to find the best seats by the window.",
    "The team spent months planning every detail of the opening.",
    "Local suppliers deliver fresh produce every morning before sunrise.",
    "Most of the work happens quietly, long before anyone notices.",
    "Tickets are available online and at the door while they last.",
    "Residents say the change has made the neighbourhood feel younger.",
    "The archive holds letters, photographs and maps from three centuries.",
    "Volunteers guide small groups through the building every afternoon.",
    "Nobody expected the project to attract so much attention so quickly.",
    "A second phase is planned for next spring if funding allows.",
)
# Repeated on many pages: translated once per locale, then reused from translation memory.
SHARED_HEADINGS = ("Key takeaways", "Further reading", "Practical information")
SHARED_NOTE = "Opening hours may change on public holidays. Please check before you travel."
LONG_TITLE = (
    "A very long headline about the restoration of the old harbour lighthouse, the volunteers "
    "who saved it and the town that came together to keep its light burning"
)


@dataclass(frozen=True)
class SeedResult:
    pages: int
    created: bool


def ensure_admin_user(username: str = "admin", password: str = "changeme") -> None:
    user_model = get_user_model()
    if not user_model.objects.filter(username=username).exists():
        user_model.objects.create_superuser(username, "admin@example.com", password)


EDITOR_GROUP = "Translators"
# What the demo's editor may do: use the admin, manage bulk translation runs, and edit what runs
# translate (every page, the translatable snippets and the settings).
EDITOR_PERMISSIONS = [
    ("wagtailadmin", "access_admin"),
    ("wagtail_bulk_translate", "manage_runs"),
    *(
        (app, f"{action}_{model}")
        for app, model in [
            ("demo", "category"),
            ("demo", "testimonial"),
            ("demo", "footertext"),
            ("demo", "sitebranding"),
            ("demo", "sociallinks"),
        ]
        for action in ("add", "change")
    ),
    ("demo", "publish_footertext"),
]
EDITOR_PAGE_PERMISSIONS = ("add_page", "change_page", "publish_page")


def ensure_editor_user(username: str = "editor", password: str = "changeme") -> None:
    """An editor who is not a superuser: the admin as most people who start runs see it."""
    from django.contrib.auth.models import Group, Permission
    from wagtail.models import GroupPagePermission

    group, _created = Group.objects.get_or_create(name=EDITOR_GROUP)
    for app_label, codename in EDITOR_PERMISSIONS:
        permission = Permission.objects.filter(
            content_type__app_label=app_label, codename=codename
        ).first()
        if permission is not None:
            group.permissions.add(permission)
    root = Page.get_first_root_node()
    for codename in EDITOR_PAGE_PERMISSIONS:
        GroupPagePermission.objects.get_or_create(
            group=group,
            page=root,
            permission=Permission.objects.get(
                content_type__app_label="wagtailcore", codename=codename
            ),
        )
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        user = user_model.objects.create_user(
            username, "editor@example.com", password, first_name="Edith", last_name="Editor"
        )
    user.groups.add(group)


def ensure_locales() -> None:
    for code in LOCALES:
        Locale.objects.get_or_create(language_code=code)


@transaction.atomic
def seed_demo_content(pages: int = 300, seed: int = 7) -> SeedResult:
    """Create the demo site once; a second call changes nothing."""
    ensure_locales()
    existing = HomePage.objects.filter(locale__language_code="en").first()
    if existing is not None:
        return SeedResult(pages=existing.get_descendants(inclusive=True).count(), created=False)
    rng = random.Random(seed)
    home = create_home()
    categories = create_snippets()
    create_settings()
    landing = [create_landing_page(home, title, rng) for title in LANDING_PAGES]
    article_count = max(len(SECTIONS), pages - 1 - len(SECTIONS) - len(landing))
    indexes = [create_index(home, title, rng) for title in SECTIONS]
    articles = []
    for number in range(article_count):
        index = indexes[number % len(indexes)]
        articles.append(create_article(index, number, categories, articles or landing, rng))
    add_awkward_cases(articles, rng)
    return SeedResult(pages=home.get_descendants(inclusive=True).count(), created=True)


def create_home() -> HomePage:
    root = Page.get_first_root_node()
    # Wagtail's initial migration creates a placeholder page; the demo replaces it.
    for placeholder in root.get_children().exact_type(Page):
        placeholder.delete()
    home = root.add_child(
        instance=HomePage(
            title="Northwind Journal",
            slug="home",
            intro=rich("Stories, guides and news from the <b>north-west coast</b>."),
            body=[
                stream("heading", "Welcome"),
                stream(
                    "paragraph",
                    rich(
                        "We publish <i>slow journalism</i> about places and people. Read our "
                        '<a href="https://example.org/manifesto">manifesto</a>.'
                    ),
                ),
            ],
        )
    )
    site = Site.objects.filter(is_default_site=True).first()
    if site is None:
        Site.objects.create(
            hostname="localhost", port=DEFAULT_PORT, root_page=home, is_default_site=True
        )
    else:
        site.root_page, site.site_name = home, "Northwind Journal"
        site.save()
    # One site per translated locale (SITE_LOCALES in settings maps each to its locale).
    for code in LOCALES[1:]:
        Site.objects.get_or_create(
            hostname=f"{code}.localhost", port=DEFAULT_PORT, defaults={"root_page": home}
        )
    return home


def set_sites_port(port: int) -> int:
    """Point the demo's sites at the port the server listens on; returns how many changed.

    Wagtail matches requests to sites by hostname whatever the port, but builds full URLs
    (``page.full_url``, notification e-mails) from the site's port.
    """
    hostnames = ["localhost", *(f"{code}.localhost" for code in LOCALES[1:])]
    changed = Site.objects.filter(hostname__in=hostnames).exclude(port=port).update(port=port)
    Site.clear_site_root_paths_cache()
    return changed


def create_index(home: HomePage, title: str, rng: random.Random) -> ArticleIndexPage:
    return home.add_child(instance=ArticleIndexPage(title=title, intro=rich(paragraph(rng, 2))))


def create_landing_page(home: HomePage, title: str, rng: random.Random) -> LandingPage:
    page = LandingPage(
        title=title,
        body=[stream("heading", title), stream("paragraph", rich(paragraph(rng, 3)))],
    )
    page.faqs = [
        LandingPageFAQ(question=f"{question}?", answer=rich(paragraph(rng, 2)))
        for question in ("How can I reach you", "Where are you based", "Who writes the articles")
    ]
    return home.add_child(instance=page)


def create_article(
    index: ArticleIndexPage,
    number: int,
    categories: list[Category],
    link_targets: list[Page],
    rng: random.Random,
) -> ArticlePage:
    title = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} ({number + 1})"
    linked = rng.choice(link_targets)
    article = ArticlePage(
        title=title,
        summary=rng.choice(SENTENCES),
        category=categories[number % len(categories)],
        coordinates=f"{rng.uniform(43, 55):.4f}, {rng.uniform(-5, 12):.4f}",
        contact_email=f"desk{number % 7}@northwind.example",
        reference_code=f"NWJ-{2026 - number % 5}-{number:04d}",
        body=article_body(rng, linked),
    )
    return index.add_child(instance=article)


def article_body(rng: random.Random, linked: Page) -> list[dict]:
    return [
        stream(
            "paragraph",
            rich(
                f"{rng.choice(SENTENCES)} <b>{rng.choice(SENTENCES)}</b> See "
                f'<a linktype="page" id="{linked.pk}">{linked.title}</a> for more.'
            ),
        ),
        stream(
            "section",
            {
                "heading": rng.choice(SHARED_HEADINGS),
                "content": [
                    stream("paragraph", rich(paragraph(rng, 2))),
                    stream("quote", {"quote": rng.choice(SENTENCES), "attribution": "A reader"}),
                    stream("facts", list_items([rng.choice(SENTENCES) for _ in range(2)])),
                ],
                "cards": list_items(
                    [
                        {
                            "heading": rng.choice(SUBJECTS),
                            "body": rich(f"<i>{rng.choice(SENTENCES)}</i> {SHARED_NOTE}"),
                            "link": {"text": "Read more", "url": "https://example.org/cards"},
                        }
                    ]
                ),
            },
        ),
        stream(
            "links",
            list_items(
                [
                    {"text": "Visitor information", "url": "https://example.org/visit"},
                    {"text": rng.choice(SHARED_HEADINGS), "url": "https://example.org/reading"},
                ]
            ),
        ),
    ]


def create_snippets() -> list[Category]:
    categories = [
        Category.objects.create(name=name, description=description)
        for name, description in CATEGORIES
    ]
    for quote, author, role in (
        ("The best guide to the coast I have found in years.", "Maria Lopez", "Reader"),
        ("Every issue teaches me something new about my own town.", "Tom Becker", "Subscriber"),
        ("Careful, kind and beautifully written.", "Aiko Tanaka", "Librarian"),
    ):
        Testimonial.objects.create(quote=quote, author=author, role=role)
    footer = FooterText(
        body=rich(
            'Northwind Journal is <b>independent</b>. <a href="https://example.org/'
            'support">Support us</a>.'
        ),
        live=True,
    )
    footer.save()
    footer.save_revision().publish()
    return categories


def create_settings() -> None:
    default = Locale.get_default()
    SiteBranding.objects.update_or_create(
        locale=default,
        defaults={
            "tagline": "Slow journalism from the north-west coast",
            "cookie_notice": rich("We use <b>one</b> cookie to remember your language."),
        },
    )
    site = Site.objects.get(is_default_site=True)
    SocialLinks.objects.update_or_create(
        site=site,
        defaults={
            "newsletter_pitch": "One letter a month, no noise.",
            "contact_heading": "Write to the editors",
            "analytics_id": "NW-00042",
            "mastodon_url": "https://example.social/@northwind",
        },
    )


def add_awkward_cases(articles: list[ArticlePage], rng: random.Random) -> None:
    """Drafts with unpublished changes, a locked page and a very long title."""
    for article in articles[3::40]:
        article.summary = f"Updated draft: {rng.choice(SENTENCES)}"
        article.save_revision()
    locked = articles[1]
    locked.locked = True
    locked.save(update_fields=["locked"])
    long_title = articles[2]
    long_title.title = LONG_TITLE
    long_title.save(update_fields=["title", "draft_title"])


def paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(rng.choice(SENTENCES) for _ in range(sentences))


def rich(html: str) -> str:
    return f"<p>{html}</p>"


def stream(block_type: str, value) -> dict:
    return {"type": block_type, "value": value, "id": str(uuid.uuid4())}


def list_items(values: list) -> list[dict]:
    return [{"type": "item", "value": value, "id": str(uuid.uuid4())} for value in values]
