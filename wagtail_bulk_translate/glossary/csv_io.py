"""The glossary as CSV: one row per term and target locale, exported and imported whole.

Columns: ``source_locale, term, case_sensitive, never_translate, target_locale, translation``.
A term without translations (or never translated) has one row with the last two empty.
Locales are Wagtail locale codes. An import adds and updates terms, it never deletes; every row
is checked before anything is written, and one bad row refuses the whole file with errors that
name the row, so nothing is ever half imported.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import gettext as _
from wagtail.models import Locale

from ..models import GlossaryTerm, GlossaryTranslation
from .changes import glossary_changed

COLUMNS = [
    "source_locale",
    "term",
    "case_sensitive",
    "never_translate",
    "target_locale",
    "translation",
]
REQUIRED = {"source_locale", "term"}
TRUE = {"1", "true", "yes", "y", "x"}
FALSE = {"", "0", "false", "no", "n"}
MAX_ROWS = 50_000


class GlossaryImportError(ValueError):
    """The file was refused; ``errors`` lists every problem, each naming its row."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass
class ParsedTerm:
    source_locale: Locale
    term: str
    case_sensitive: bool
    never_translate: bool
    row: int
    translations: dict[Locale, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportSummary:
    terms_created: int
    terms_updated: int
    translations_written: int
    terms: list[GlossaryTerm] = field(default_factory=list)  # every term the file wrote


# --- export --------------------------------------------------------------------------------------


def export_rows(terms: Iterable[GlossaryTerm] | None = None) -> Iterator[list[str]]:
    """The header, then one row per term and target locale (terms sorted by locale and text)."""
    yield COLUMNS
    if terms is None:
        terms = GlossaryTerm.objects.order_by("source_locale__language_code", "source_term")
    for term in terms:
        base = [
            term.source_locale.language_code,
            term.source_term,
            "yes" if term.case_sensitive else "no",
            "yes" if term.never_translate else "no",
        ]
        translations = sorted(
            (t.target_locale.language_code, t.target_term) for t in term.translations.all()
        )
        if term.never_translate or not translations:
            yield [*base, "", ""]
        for code, target in [] if term.never_translate else translations:
            yield [*base, code, target]


def export_csv(terms: Iterable[GlossaryTerm] | None = None) -> str:
    out = io.StringIO()
    csv.writer(out).writerows(export_rows(terms))
    return out.getvalue()


def export_queryset() -> Iterable[GlossaryTerm]:
    return GlossaryTerm.objects.select_related("source_locale").prefetch_related(
        "translations__target_locale"
    )


# --- import --------------------------------------------------------------------------------------


def read_csv(data: bytes | str) -> list[dict[str, str]]:
    """The rows of a CSV file as dicts (a UTF-8 byte-order mark from Excel is dropped)."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise GlossaryImportError([_("The file is not UTF-8 text (%s).") % err]) from err
    reader = csv.DictReader(io.StringIO(data.lstrip("\ufeff")))
    header = [name.strip().lower() for name in reader.fieldnames or []]
    missing = [name for name in COLUMNS if name in REQUIRED and name not in header]
    if missing:
        raise GlossaryImportError(
            [
                _("The first row must name the columns %(columns)s; missing: %(missing)s.")
                % {"columns": ", ".join(COLUMNS), "missing": ", ".join(missing)}
            ]
        )
    reader.fieldnames = header
    try:
        rows = [{k: (v or "").strip() for k, v in row.items() if k} for row in reader]
    except csv.Error as err:
        raise GlossaryImportError([_("The file is not valid CSV: %s.") % err]) from err
    if len(rows) > MAX_ROWS:
        raise GlossaryImportError([_("At most %d rows can be imported at once.") % MAX_ROWS])
    return rows


def import_csv(data: bytes | str) -> ImportSummary:
    """Check every row, then write them all in one transaction (or raise, writing nothing).

    What the import changed is recorded (it outdates the translations it bears on) and the
    DeepL glossaries are synced after it, as after any edit of the glossary."""
    terms = parse_rows(read_csv(data))
    with transaction.atomic():
        summary = write_terms(terms)
        glossary_changed()
    return summary


def parse_rows(rows: list[dict[str, str]]) -> list[ParsedTerm]:
    locales = {locale.language_code.lower(): locale for locale in Locale.objects.all()}
    terms: dict[tuple[int, str], ParsedTerm] = {}
    errors: list[str] = []
    for number, row in enumerate(rows, start=2):  # row 1 is the header
        problem = parse_row(number, row, locales, terms)
        if problem:
            errors.append(_("Row %(row)d: %(problem)s") % {"row": number, "problem": problem})
    if not rows:
        errors.append(_("The file has no rows besides its header."))
    if errors:
        raise GlossaryImportError(errors)
    return list(terms.values())


def parse_row(
    number: int,
    row: dict[str, str],
    locales: dict[str, Locale],
    terms: dict[tuple[int, str], ParsedTerm],
) -> str:
    """Add the row to ``terms``; returns what is wrong with it ("" if nothing)."""
    term_text = row.get("term", "")
    if not term_text:
        return _("the term is empty.")
    source = locales.get(row.get("source_locale", "").lower())
    if source is None:
        return _("“%(code)s” is not a locale of this site (source_locale).") % {
            "code": row.get("source_locale", "")
        }
    flags = [parse_flag(row.get(name, "")) for name in ("case_sensitive", "never_translate")]
    if None in flags:
        return _("case_sensitive and never_translate must be yes or no.")
    case_sensitive, never_translate = bool(flags[0]), bool(flags[1])
    term = terms.setdefault(
        (source.pk, term_text),
        ParsedTerm(source, term_text, case_sensitive, never_translate, number),
    )
    if (term.case_sensitive, term.never_translate) != (case_sensitive, never_translate):
        return _(
            "“%(term)s” has other case_sensitive or never_translate values in row %(first)d."
        ) % {
            "term": term_text,
            "first": term.row,
        }
    return add_translation(term, row, locales)


def add_translation(term: ParsedTerm, row: dict[str, str], locales: dict[str, Locale]) -> str:
    code, translation = row.get("target_locale", ""), row.get("translation", "")
    if not code and not translation:
        return ""
    target = locales.get(code.lower())
    if target is None:
        return _("“%(code)s” is not a locale of this site (target_locale).") % {"code": code}
    if term.never_translate:
        return _("“%(term)s” is never translated, so it cannot have a translation.") % {
            "term": term.term
        }
    if not translation:
        return _("the translation into %(locale)s is empty.") % {"locale": code}
    if target == term.source_locale:
        return _("the target locale is the term's own locale.")
    if term.translations.get(target, translation) != translation:
        return _("“%(term)s” has two different translations into %(locale)s.") % {
            "term": term.term,
            "locale": code,
        }
    term.translations[target] = translation
    return ""


def parse_flag(value: str) -> bool | None:
    value = value.strip().lower()
    return True if value in TRUE else False if value in FALSE else None


def write_terms(terms: list[ParsedTerm]) -> ImportSummary:
    created = updated = written = 0
    saved = []
    for parsed in terms:
        term, was_created = GlossaryTerm.objects.update_or_create(
            source_locale=parsed.source_locale,
            source_term=parsed.term,
            defaults={
                "case_sensitive": parsed.case_sensitive,
                "never_translate": parsed.never_translate,
            },
        )
        saved.append(term)
        created += was_created
        updated += not was_created
        for target, text in parsed.translations.items():
            GlossaryTranslation.objects.update_or_create(
                term=term, target_locale=target, defaults={"target_term": text}
            )
            written += 1
    return ImportSummary(created, updated, written, saved)
