"""The glossary screens: permission, listing, add with translations, CSV, house style, DeepL
glossary state and the audit log."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from wagtail.models import Locale, ModelLogEntry

from wagtail_bulk_translate.admin.glossary.log_actions import IMPORTED, SYNC_REQUESTED
from wagtail_bulk_translate.models import (
    DeepLGlossary,
    GlossaryTerm,
    GlossaryTranslation,
    HouseStyle,
    SyncStatus,
)

pytestmark = pytest.mark.django_db

TERMS = "wagtail_bulk_translate_glossary"
HOUSE_STYLE = "wagtail_bulk_translate_house_style"
DEEPL = "wagtail_bulk_translate_deepl_glossaries"
URLS = [
    f"{TERMS}:index",
    f"{TERMS}:add",
    f"{TERMS}:import",
    f"{TERMS}:export",
    f"{HOUSE_STYLE}:index",
    f"{HOUSE_STYLE}:add",
    f"{DEEPL}:index",
    f"{DEEPL}:sync",
]
HEADER = "source_locale,term,case_sensitive,never_translate,target_locale,translation\n"


def locale(code: str) -> Locale:
    return Locale.objects.get(language_code=code)


def term_form(term: str, translations: dict[str, str], *, never: bool = False) -> dict:
    data = {
        "source_locale": locale("en").pk,
        "source_term": term,
        "note": "",
        "translations-TOTAL_FORMS": str(len(translations)),
        "translations-INITIAL_FORMS": "0",
        "translations-MIN_NUM_FORMS": "0",
        "translations-MAX_NUM_FORMS": "1000",
    }
    if never:
        data["never_translate"] = "on"
    for index, (code, target) in enumerate(translations.items()):
        prefix = f"translations-{index}-"
        data |= {
            f"{prefix}target_locale": locale(code).pk,
            f"{prefix}target_term": target,
            f"{prefix}id": "",
            f"{prefix}ORDER": str(index),
            f"{prefix}DELETE": "",
        }
    return data


def upload(text: str, name: str = "terms.csv") -> dict:
    return {"file": SimpleUploadedFile(name, text.encode(), content_type="text/csv")}


@pytest.mark.parametrize("url_name", URLS)
def test_user_without_the_permission_gets_403(outsider_client, url_name):
    assert outsider_client.get(reverse(url_name)).status_code == 403


def test_user_without_the_permission_gets_403_on_posts_and_sees_no_menu(outsider_client):
    assert outsider_client.post(reverse(f"{TERMS}:import"), upload(HEADER)).status_code == 403
    assert outsider_client.post(reverse(f"{DEEPL}:sync")).status_code == 403
    home = outsider_client.get(reverse("wagtailadmin_home")).content.decode()
    assert reverse(f"{TERMS}:index") not in home
    assert not GlossaryTerm.objects.exists()


def test_editor_sees_the_menu_and_every_screen(editor_client):
    home = editor_client.get(reverse("wagtailadmin_home")).content.decode()
    assert reverse(f"{TERMS}:index") in home
    assert reverse(f"{HOUSE_STYLE}:index") in home
    for url_name in URLS:
        assert editor_client.get(reverse(url_name)).status_code == 200, url_name


def test_editor_adds_a_term_with_translations_logged_and_synced(
    editor_client, editor, task_queue, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = editor_client.post(
            reverse(f"{TERMS}:add"), term_form("lawn", {"de": "Rasen", "fr": "pelouse"})
        )

    assert response.status_code == 302
    term = GlossaryTerm.objects.get()
    assert sorted(term.translations.values_list("target_term", flat=True)) == ["Rasen", "pelouse"]
    entry = ModelLogEntry.objects.get(action="wagtail.create")
    assert (entry.user, entry.object_id) == (editor, str(term.pk))
    assert task_queue.names() == ["sync_glossaries"]


def test_a_duplicate_term_is_refused_with_a_message(editor_client):
    editor_client.post(reverse(f"{TERMS}:add"), term_form("ACME", {}, never=True))

    response = editor_client.post(reverse(f"{TERMS}:add"), term_form("ACME", {}, never=True))

    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert GlossaryTerm.objects.count() == 1


def test_edit_and_delete_are_logged(editor_client, task_queue):
    editor_client.post(reverse(f"{TERMS}:add"), term_form("lawn", {}))
    term = GlossaryTerm.objects.get()

    editor_client.post(reverse(f"{TERMS}:edit", args=(term.pk,)), term_form("lawns", {}))
    editor_client.post(reverse(f"{TERMS}:delete", args=(term.pk,)))

    assert not GlossaryTerm.objects.exists()
    actions = ModelLogEntry.objects.filter(object_id=str(term.pk)).values_list("action", flat=True)
    assert sorted(actions) == ["wagtail.create", "wagtail.delete", "wagtail.edit"]


def test_listing_searches_terms_and_translations_and_filters(editor_client):
    editor_client.post(reverse(f"{TERMS}:add"), term_form("lawn", {"de": "Rasen"}))
    editor_client.post(reverse(f"{TERMS}:add"), term_form("ACME", {}, never=True))
    index = reverse(f"{TERMS}:index")

    def listed(**params) -> list[str]:
        response = editor_client.get(index, params)
        return [term.source_term for term in response.context["object_list"]]

    assert listed(q="rasen") == ["lawn"]
    assert listed(q="acm") == ["ACME"]
    assert listed(never_translate="true") == ["ACME"]
    assert "de: Rasen" in editor_client.get(index).content.decode()


def test_import_writes_every_row_in_the_background_and_logs_it_once(
    editor_client, editor, task_queue, django_capture_on_commit_callbacks
):
    body = HEADER + "en,lawn,no,no,de,Rasen\nen,lawn,no,no,fr,pelouse\nen,ACME,yes,yes,,\n"

    with django_capture_on_commit_callbacks(execute=True):
        response = editor_client.post(reverse(f"{TERMS}:import"), upload(body), follow=True)

    assert "Importing 3 rows in the background" in response.content.decode()
    assert not GlossaryTerm.objects.exists()
    task_queue.drain()
    result = editor_client.get(response.redirect_chain[-1][0]).content.decode()
    assert "2 terms added, 0 updated, 2 translations written" in result
    assert GlossaryTranslation.objects.count() == 2
    logged = ModelLogEntry.objects.get(action=IMPORTED)
    assert logged.user == editor
    assert logged.data == {"file": "terms.csv", "created": 2, "updated": 0, "translations": 2}


def test_a_bad_import_shows_the_rows_and_writes_nothing(editor_client):
    body = HEADER + "en,lawn,no,no,de,Rasen\nxx,hedge,no,no,de,Hecke\nen,,no,no,,\n"

    response = editor_client.post(reverse(f"{TERMS}:import"), upload(body))

    html = response.content.decode()
    assert response.status_code == 400
    assert "Nothing was imported" in html
    assert "Row 3: “xx” is not a locale of this site" in html and "Row 4: the term is empty" in html
    assert not GlossaryTerm.objects.exists()
    assert not ModelLogEntry.objects.exists()


def test_export_downloads_the_glossary(editor_client):
    editor_client.post(reverse(f"{TERMS}:add"), term_form("lawn", {"de": "Rasen"}))

    response = editor_client.get(reverse(f"{TERMS}:export"))

    assert response["Content-Type"].startswith("text/csv")
    assert response.content.decode() == HEADER.replace("\n", "\r\n") + "en,lawn,no,no,de,Rasen\r\n"


def test_house_style_per_locale(editor_client):
    response = editor_client.post(
        reverse(f"{HOUSE_STYLE}:add"),
        {"locale": locale("de").pk, "formality": "prefer_less", "instructions": "Duze."},
    )

    assert response.status_code == 302
    assert HouseStyle.objects.get().formality == "prefer_less"
    assert ModelLogEntry.objects.filter(action="wagtail.create").count() == 1


@pytest.mark.parametrize(
    ("code", "instructions", "message"),
    [
        ("en", "Be nice.", "is the source language"),
        ("de", "x" * 10_001, "at most 10000 are sent"),
    ],
)
def test_a_house_style_that_cannot_apply_is_refused(editor_client, code, instructions, message):
    response = editor_client.post(
        reverse(f"{HOUSE_STYLE}:add"), {"locale": locale(code).pk, "instructions": instructions}
    )

    assert response.status_code == 200
    assert message in response.content.decode()
    assert not HouseStyle.objects.exists()


def test_the_house_style_limit_is_a_setting(editor_client, conf):
    conf(HOUSE_STYLE_MAX_CHARACTERS=5)
    response = editor_client.post(
        reverse(f"{HOUSE_STYLE}:add"), {"locale": locale("de").pk, "instructions": "Duze bitte."}
    )
    assert "at most 5 are sent" in response.content.decode()


def test_a_translation_into_the_terms_own_locale_is_refused(editor_client):
    response = editor_client.post(reverse(f"{TERMS}:add"), term_form("lawn", {"en": "lawn"}))

    assert response.status_code == 200
    assert "is the term&#x27;s own language" in response.content.decode()
    assert not GlossaryTerm.objects.exists()


def test_a_failed_or_unsupported_deepl_glossary_is_shown_with_its_reason(editor_client):
    DeepLGlossary.objects.create(
        source_locale=locale("en"),
        target_locale=locale("de"),
        status=SyncStatus.FAILED,
        message="DeepL refused the glossary: Invalid glossary entries",
    )
    DeepLGlossary.objects.create(
        source_locale=locale("en"), target_locale=locale("fr"), status=SyncStatus.SYNCED
    )

    html = editor_client.get(reverse(f"{DEEPL}:index")).content.decode()

    assert 'data-bt-sync-problem="failed"' in html
    assert "Invalid glossary entries" in html
    assert 'data-bt-sync-status="synced"' in html


def test_sync_now_queues_a_sync_and_is_logged(
    editor_client, editor, task_queue, django_capture_on_commit_callbacks
):
    row = DeepLGlossary.objects.create(
        source_locale=locale("en"), target_locale=locale("de"), status=SyncStatus.FAILED
    )

    with django_capture_on_commit_callbacks(execute=True):
        response = editor_client.post(reverse(f"{DEEPL}:sync"))

    assert response.status_code == 302
    row.refresh_from_db()
    assert row.status == SyncStatus.PENDING
    assert task_queue.names() == ["sync_glossaries"]
    assert ModelLogEntry.objects.get(action=SYNC_REQUESTED).user == editor


def test_the_terms_listing_warns_of_pairs_not_synced(editor_client):
    index = reverse(f"{TERMS}:index")
    assert "not synced to DeepL" not in editor_client.get(index).content.decode()
    DeepLGlossary.objects.create(
        source_locale=locale("en"), target_locale=locale("de"), status=SyncStatus.UNSUPPORTED
    )

    html = editor_client.get(index).content.decode()

    assert "1 language pair is not synced to DeepL." in html
    assert reverse(f"{DEEPL}:index") in html
