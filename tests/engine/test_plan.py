from wagtail_localize.segments import StringSegmentValue, TemplateSegmentValue
from wagtail_localize.strings import StringValue

from wagtail_bulk_translate.engine.plan import needs_translation, plan_strings
from wagtail_bulk_translate.localize.segments import SourceString, segment_hash
from wagtail_bulk_translate.models import Mode

TITLE = SourceString(1, 10, "title", "Our mission")
SLUG = SourceString(2, 11, "slug", "our-mission")
EMAIL = SourceString(3, 12, "contact_email", "hello@example.com")
BODY = SourceString(4, 13, "body.abc", 'Read <a id="a1">more</a>.')
FR = 7


def plan(strings, existing=None, mode=Mode.CHANGED, excluded=(), slug_value=None):
    return plan_strings(
        strings,
        existing or {},
        FR,
        mode=mode,
        excluded_fields=list(excluded),
        slug_value=slug_value,
    )


def test_hash_ignores_nothing_translatable_and_sees_text_changes():
    a = [
        StringSegmentValue("title", StringValue("Hello")),
        TemplateSegmentValue("x", "html", "<p/>", 0),
    ]
    b = [
        StringSegmentValue("title", StringValue("Hello")),
        TemplateSegmentValue("x", "html", "<p/>", 0),
    ]
    c = [
        StringSegmentValue("title", StringValue("Hello!")),
        TemplateSegmentValue("x", "html", "<p/>", 0),
    ]
    assert segment_hash(a) == segment_hash(b)
    assert segment_hash(a) != segment_hash(c)


def test_manual_translations_are_kept_except_in_overwrite_mode():
    manual = (True, False)
    assert not needs_translation(Mode.CHANGED, manual)
    assert not needs_translation(Mode.REFRESH, manual)
    assert needs_translation(Mode.OVERWRITE, manual)


def test_machine_translations_are_redone_only_in_refresh_or_when_broken():
    assert not needs_translation(Mode.CHANGED, (False, False))
    assert needs_translation(Mode.CHANGED, (False, True))
    assert needs_translation(Mode.REFRESH, (False, False))
    assert needs_translation(Mode.CHANGED, None)


def test_non_prose_and_excluded_fields_are_copied_not_translated():
    needs = plan([TITLE, EMAIL, BODY], excluded=["body"])
    assert needs.to_translate == [TITLE]
    assert needs.resolved == {EMAIL: "hello@example.com", BODY: BODY.data}


def test_slug_takes_the_given_value_instead_of_a_translation():
    needs = plan([TITLE, SLUG], slug_value="notre-mission")
    assert needs.to_translate == [TITLE]
    assert needs.resolved == {SLUG: "notre-mission"}
    assert plan([SLUG], slug_value=None).to_translate == [SLUG]


def test_existing_translation_in_another_locale_does_not_count():
    existing = {(TITLE.string_id, TITLE.context_id, FR + 1): (False, False)}
    assert plan([TITLE], existing).to_translate == [TITLE]
    existing = {(TITLE.string_id, TITLE.context_id, FR): (False, False)}
    assert plan([TITLE], existing).to_translate == []
