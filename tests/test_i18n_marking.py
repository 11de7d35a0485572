"""Every sentence an editor reads is marked for translation, in templates and in Python.

The catalogs test (``test_i18n``) proves that what is marked is translated; this one proves that
what an editor reads is marked. Templates: any text outside ``{% trans %}`` / ``{% blocktrans %}``
and any literal ``title``, ``aria-label``, ``placeholder`` or ``alt`` attribute fails. Python: a
literal sentence given to Wagtail's or Django's messages, to ``ValidationError`` or
``PermissionDenied``, as a form field's ``label`` / ``help_text``, or as a view's ``page_title``
(and the like) fails; log messages and the command line stay English, as Django's do.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "wagtail_bulk_translate"
TEMPLATES = PACKAGE / "templates"

# Template parts that hold no editor-facing text of their own, removed before looking.
NOT_TEXT = [
    re.compile(r"{#.*?#}", re.S),
    re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.S),
    re.compile(r"{%\s*blocktrans(?:late)?\b.*?{%\s*endblocktrans(?:late)?\s*%}", re.S),
    re.compile(r"{%\s*fragment\b.*?{%\s*endfragment\s*%}", re.S),  # ids and class names
    re.compile(r"<(script|style)\b.*?</\1>", re.S),
]
TEMPLATE_CODE = re.compile(r"{%.*?%}|{{.*?}}", re.S)
READ_ATTRIBUTES = re.compile(r'\b(title|aria-label|placeholder|alt)="([^"]*)"')
HTML_TAG = re.compile(r"<[^>]*>", re.S)
WORD = re.compile(r"[^\W\d_]{2,}")

# Python: where a literal is shown to an editor.
SHOWN_AS_KEYWORD = {"label", "help_text", "verbose_name", "verbose_name_plural", "empty_label"}
SHOWN_AS_ATTRIBUTE = {"page_title", "header_title", "page_subtitle", "menu_label", "verbose_name"}
SHOWN_BY_CALL = {"ValidationError", "PermissionDenied"}
MESSAGE_FUNCTIONS = {"success", "error", "warning", "info", "add_message", "debug"}
LOGGERS = {"logger", "log", "logging"}
# Parts of the package an editor does not read: the command line, migrations.
NOT_EDITOR_FACING = {"management", "migrations"}


def templates() -> list[Path]:
    return sorted(TEMPLATES.rglob("*.html"))


def python_modules() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if not NOT_EDITOR_FACING & set(path.relative_to(PACKAGE).parts)
    )


def unmarked_template_text(source: str) -> list[str]:
    for pattern in NOT_TEXT:
        source = pattern.sub(" ", source)
    source = TEMPLATE_CODE.sub(" ", source)
    found = [
        f'{name}="{value}"' for name, value in READ_ATTRIBUTES.findall(source) if WORD.search(value)
    ]
    for line in HTML_TAG.sub(" ", source).splitlines():
        if WORD.search(line):
            found.append(line.strip())
    return found


def is_sentence(node: ast.expr) -> bool:
    """A literal with words in it (an f-string counts by its literal parts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(WORD.search(node.value)) and " " in node.value.strip()
    if isinstance(node, ast.JoinedStr):
        literal = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        return bool(WORD.search(literal)) and " " in literal.strip()
    return False


def called_name(call: ast.Call) -> tuple[str, str]:
    """(the object, the function) of a call: ("messages", "error"), ("", "ValidationError")."""
    func = call.func
    if isinstance(func, ast.Attribute):
        owner = func.value.id if isinstance(func.value, ast.Name) else ""
        return owner, func.attr
    return "", getattr(func, "id", "")


def unmarked_python_literals(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            owner, name = called_name(node)
            shown = [kw.value for kw in node.keywords if kw.arg in SHOWN_AS_KEYWORD]
            if name in SHOWN_BY_CALL or (name in MESSAGE_FUNCTIONS and owner not in LOGGERS):
                shown += node.args
            found += [f"line {node.lineno}: {ast.unparse(v)}" for v in shown if is_sentence(v)]
        elif isinstance(node, ast.Assign) and is_sentence(node.value):
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if names & SHOWN_AS_ATTRIBUTE:
                found.append(f"line {node.lineno}: {ast.unparse(node.value)}")
    return sorted(found, key=lambda text: int(text.split(":")[0].removeprefix("line ")))


@pytest.mark.parametrize("path", templates(), ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_template_text_is_marked(path):
    assert unmarked_template_text(path.read_text()) == []


@pytest.mark.parametrize("path", python_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_python_sentences_shown_to_editors_are_marked(path):
    assert unmarked_python_literals(path.read_text()) == []


# The scanners themselves: each finds what it is meant to find.


def test_the_template_scanner_finds_text_outside_trans_tags():
    source = """
        {% load i18n %}{# a note #}<p data-x="{{ x }}">{% trans "Marked" %}</p>
        <h2>Not marked</h2><button aria-label="Close it">{% blocktrans %}Fine{% endblocktrans %}
        </button>{% fragment as id %}bt-row-{{ pk }}{% endfragment %}<img alt="{{ alt }}">
    """
    assert unmarked_template_text(source) == ['aria-label="Close it"', "Not marked"]


def test_the_python_scanner_finds_literal_sentences_shown_to_editors():
    source = """
messages.error(request, "Something went wrong.")
messages.success(request, _("Marked, fine."))
logger.warning("Logs stay English %s", x)
raise ValidationError(f"Bad value {x} here")
field = forms.CharField(label="Your name", help_text=_("Marked."))
page_title = "Runs listing"
code = "not shown"
"""
    found = unmarked_python_literals(source)
    assert [line.split(":")[0] for line in found] == ["line 2", "line 5", "line 6", "line 7"]
