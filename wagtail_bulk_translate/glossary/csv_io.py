"""The glossary as CSV: one row per term and target locale, exported and imported whole.

Columns: ``source_locale, term, case_sensitive, never_translate, target_locale, translation``.
A term without translations (or never translated) has one row with the last two empty.
Locales are Wagtail locale codes. An import adds and updates terms, it never deletes; every row
is checked before anything is written, and one bad row refuses the whole file with errors that
name the row, so nothing is ever half imported. A file holds at most ``MAX_TERMS`` terms (an
export of that many can be imported back); the admin imports in the background
(:mod:`.imports`).

Cells that a spreadsheet would run as a formula (starting with ``= + - @``, a tab or a carriage
return) are exported with a leading ``'``, as OWASP recommends against CSV injection; the
import takes that ``'`` off again, so an export imports back unchanged.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator

from django.db import transaction
from django.utils.translation import gettext as _
from wagtail.models import Locale

from ..models import GlossaryTerm, GlossaryTranslation
from .bulk_write import ImportSummary, ParsedTerm, write_terms
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
MAX_TERMS = 50_000
# One row per term and target locale: an export of MAX_TERMS terms into many locales must fit.
MAX_ROWS = 1_000_000
# Leading characters that make a spreadsheet evaluate a cell; a cell escaped with ' before them.
FORMULA = re.compile(r"^'*[=+\-@\t\r]")
ESCAPED_FORMULA = re.compile(r"^'+[=+\-@\t\r]")
TERM_LENGTH: int = GlossaryTerm._meta.get_field("source_term").max_length or 255
TRANSLATION_LENGTH: int = GlossaryTranslation._meta.get_field("target_term").max_length or 255


class GlossaryImportError(ValueError):
    """The file was refused; ``errors`` lists every problem, each naming its row."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


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
    csv.writer(out).writerows([neutralise(cell) for cell in row] for row in export_rows(terms))
    return out.getvalue()


def neutralise(cell: str) -> str:
    """A cell a spreadsheet will not run as a formula (``=cmd|…`` → ``'=cmd|…``)."""
    return f"'{cell}" if FORMULA.match(cell) else cell


def unneutralise(cell: str) -> str:
    """The cell as it was before :func:`neutralise`."""
    return cell[1:] if ESCAPED_FORMULA.match(cell) else cell


def export_queryset() -> Iterable[GlossaryTerm]:
    return GlossaryTerm.objects.select_related("source_locale").prefetch_related(
        "translations__target_locale"
    )


# --- import --------------------------------------------------------------------------------------


def decode(data: bytes | str) -> str:
    """The file's text (a UTF-8 byte-order mark from Excel is dropped)."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise GlossaryImportError([_("The file is not UTF-8 text (%s).") % err]) from err
    return data.lstrip("\ufeff")


def read_csv(data: bytes | str) -> list[dict[str, str]]:
    """The rows of a CSV file as dicts."""
    data = decode(data)
    if not data.strip():
        raise GlossaryImportError([_("No terms found: the file is empty.")])
    # newline=None: line ends of any kind (\n, \r\n, and \r from old Mac spreadsheets).
    reader = csv.DictReader(io.StringIO(data, newline=None))
    try:
        header = [name.strip().lower() for name in reader.fieldnames or []]
    except csv.Error as err:
        raise GlossaryImportError([_("The file is not valid CSV: %s.") % err]) from err
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
        rows = [{k: unneutralise((v or "").strip()) for k, v in row.items() if k} for row in reader]
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
        errors.append(_("No terms found: the file has no rows besides its header."))
    if len(terms) > MAX_TERMS:
        errors.append(_("At most %d terms can be imported at once.") % MAX_TERMS)
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
    if problem := unstorable(row):
        return problem
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


def unstorable(row: dict[str, str]) -> str:
    """What no database stores alike: a NUL character (PostgreSQL refuses it, SQLite keeps
    it), or a text longer than its column (PostgreSQL refuses it, SQLite keeps it whole)."""
    if any("\x00" in value for value in row.values()):
        return _("it contains a NUL character.")
    for name, limit in (("term", TERM_LENGTH), ("translation", TRANSLATION_LENGTH)):
        if len(row.get(name, "")) > limit:
            return _("the %(column)s is longer than %(limit)d characters.") % {
                "column": name,
                "limit": limit,
            }
    return ""


def parse_flag(value: str) -> bool | None:
    value = value.strip().lower()
    return True if value in TRUE else False if value in FALSE else None
