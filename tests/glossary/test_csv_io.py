from __future__ import annotations

import csv
import io

import pytest

from wagtail_bulk_translate.glossary.csv_io import (
    GlossaryImportError,
    export_csv,
    import_csv,
)
from wagtail_bulk_translate.models import GlossaryTerm, GlossaryTranslation

HEADER = "source_locale,term,case_sensitive,never_translate,target_locale,translation\n"


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_export_has_one_row_per_term_and_locale(locales, add_term):
    add_term("lawn", de="Rasen", fr="pelouse")
    add_term("ACME", never=True, case=True)
    add_term("hedge")

    assert rows_of(export_csv()) == [
        HEADER.strip().split(","),
        ["en", "ACME", "yes", "yes", "", ""],
        ["en", "hedge", "no", "no", "", ""],
        ["en", "lawn", "no", "no", "de", "Rasen"],
        ["en", "lawn", "no", "no", "fr", "pelouse"],
    ]


def test_round_trip_gives_back_the_same_glossary(locales, add_term):
    add_term("lawn", de="Rasen", fr="pelouse")
    add_term("ACME", never=True, case=True)
    add_term("Rasen, kurz", "de", en="short lawn, mown")  # commas are quoted
    exported = export_csv()
    GlossaryTerm.objects.all().delete()

    summary = import_csv(exported.encode("utf-8-sig"))  # as Excel saves it

    assert (summary.terms_created, summary.terms_updated, summary.translations_written) == (3, 0, 3)
    assert export_csv() == exported


def test_import_updates_terms_and_translations_without_deleting(locales, add_term):
    add_term("lawn", de="Wiese")
    add_term("hedge", de="Hecke")

    summary = import_csv(HEADER + "en,lawn,yes,no,de,Rasen\nen,lawn,yes,no,es,césped\n")

    assert (summary.terms_created, summary.terms_updated, summary.translations_written) == (0, 1, 2)
    lawn = GlossaryTerm.objects.get(source_term="lawn")
    assert lawn.case_sensitive
    assert dict(lawn.translations.values_list("target_locale__language_code", "target_term")) == {
        "de": "Rasen",
        "es": "césped",
    }
    assert GlossaryTerm.objects.filter(source_term="hedge").exists()


def test_optional_columns_may_be_left_out(locales):
    import_csv("term,source_locale\nACME,en\n")

    assert GlossaryTerm.objects.get().never_translate is False


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("en,lawn,no,no,de,Rasen\nxx,hedge,no,no,de,Hecke\n", "Row 3: “xx” is not a locale"),
        ("en,lawn,no,no,de,Rasen\nen,,no,no,de,Hecke\n", "Row 3: the term is empty."),
        ("en,lawn,maybe,no,de,Rasen\n", "Row 2: case_sensitive and never_translate must be yes"),
        ("en,lawn,no,no,zz,Rasen\n", "Row 2: “zz” is not a locale of this site (target_locale)"),
        ("en,lawn,no,no,de,\n", "Row 2: the translation into de is empty."),
        ("en,ACME,no,yes,de,Acme\n", "Row 2: “ACME” is never translated, so it cannot have"),
        ("en,lawn,no,no,de,Rasen\nen,lawn,no,no,de,Wiese\n", "Row 3: “lawn” has two different"),
        ("en,lawn,no,no,de,Rasen\nen,lawn,yes,no,fr,pelouse\n", "Row 3: “lawn” has other case"),
        ("en,lawn,no,no,en,lawn\n", "Row 2: the target locale is the term's own locale."),
    ],
)
def test_a_bad_row_refuses_the_whole_file_and_names_the_row(locales, body, error):
    with pytest.raises(GlossaryImportError) as refused:
        import_csv(HEADER + body)

    assert any(message.startswith(error) for message in refused.value.errors), refused.value
    assert not GlossaryTerm.objects.exists()
    assert not GlossaryTranslation.objects.exists()


def test_every_bad_row_is_reported_at_once(locales):
    with pytest.raises(GlossaryImportError) as refused:
        import_csv(HEADER + "en,,no,no,,\nen,ok,no,no,,\nxx,a,no,no,,\n")

    assert [e.split(":")[0] for e in refused.value.errors] == ["Row 2", "Row 4"]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ("term,translation\nlawn,Rasen\n", "missing: source_locale"),
        (HEADER, "No terms found: the file has no rows besides its header."),
        (b"source_locale,term\nen,\xff\xfe\n", "The file is not UTF-8 text"),
        ("", "No terms found: the file is empty."),
        ("\n\n  \n", "No terms found: the file is empty."),
    ],
)
def test_a_file_that_is_not_a_glossary_is_refused(locales, data, error):
    with pytest.raises(GlossaryImportError) as refused:
        import_csv(data)

    assert error in str(refused.value)


def test_cr_only_line_endings_are_read_like_any_other(locales):
    summary = import_csv(HEADER.replace("\n", "\r") + "en,lawn,no,no,de,Rasen\ren,hedge,no,no,,\r")

    assert summary.terms_created == 2
    assert GlossaryTranslation.objects.get().target_term == "Rasen"


@pytest.mark.parametrize(
    ("row", "error"),
    [
        ("en,la\x00wn,no,no,de,Rasen", "Row 2: it contains a NUL character."),
        ("en,lawn,no,no,de,Ra\x00sen", "Row 2: it contains a NUL character."),
        (f"en,{'x' * 256},no,no,,", "Row 2: the term is longer than 255 characters."),
        (f"en,lawn,no,no,de,{'x' * 256}", "Row 2: the translation is longer than 255 characters."),
    ],
)
def test_what_a_database_cannot_store_is_refused_by_row(locales, row, error):
    with pytest.raises(GlossaryImportError) as refused:
        import_csv(HEADER + row + "\n")

    assert refused.value.errors == [error]
    assert not GlossaryTerm.objects.exists()


FORMULAS = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x.test","y")', "@SUM(A1)", "+1+1", "-2",
            "\tTab", "'=already quoted"]  # fmt: skip


def test_export_neutralises_formula_cells_and_import_takes_it_back(locales, add_term):
    for text in FORMULAS:
        add_term(text, de=text)

    exported = export_csv()

    cells = [cell for row in rows_of(exported)[1:] for cell in row[1::4]]
    assert all(cell.startswith("'") for cell in cells)
    GlossaryTerm.objects.all().delete()
    import_csv(exported)
    assert sorted(GlossaryTerm.objects.values_list("source_term", flat=True)) == sorted(FORMULAS)
    assert sorted(GlossaryTranslation.objects.values_list("target_term", flat=True)) == sorted(
        FORMULAS
    )
