"""The reference pages of the documentation say what the code has, no more and no less.

Error codes, command options and the public API are generated into their pages by
``scripts/docs_reference.py`` (between ``<!-- generated: NAME -->`` markers): a page that differs
from what the script makes now fails, whichever side changed. The system checks are described
by hand (what each means), so their ids are compared with the ids the package can raise. The
settings page's table is checked by ``test_conf``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts import docs_reference

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "wagtail_bulk_translate"
CHECKS_PAGE = ROOT / "docs" / "reference" / "checks.md"
CHECK_ID_IN_CODE = re.compile(r"""wagtail_bulk_translate\.([EW]\d{3})\b|["']([EW]\d{3})["']""")
CHECK_ID_ON_PAGE = re.compile(r"^\| `([EW]\d{3})` \|", re.MULTILINE)


@pytest.mark.parametrize("page", docs_reference.pages(), ids=lambda p: p.name)
def test_the_generated_reference_is_what_the_code_has(page):
    text = page.read_text()
    assert docs_reference.regenerated(text) == text, (
        f"{page.relative_to(ROOT)} is out of date: run `python scripts/docs_reference.py`"
    )


def test_each_generated_block_lists_something():
    for name, generate in docs_reference.GENERATORS.items():
        assert generate().count("\n| `") >= 10, name


def test_every_system_check_the_package_raises_is_described_and_no_other():
    raised = set()
    for path in PACKAGE.rglob("*.py"):
        for match in CHECK_ID_IN_CODE.finditer(path.read_text()):
            raised.add(match[1] or match[2])
    described = set(CHECK_ID_ON_PAGE.findall(CHECKS_PAGE.read_text()))
    assert described == raised
    assert "W010" in raised and "E001" in raised


def test_a_flag_added_to_a_command_makes_its_page_out_of_date(monkeypatch):
    page = ROOT / "docs" / "reference" / "commands.md"
    original = docs_reference.command_flags
    monkeypatch.setitem(
        docs_reference.GENERATORS,
        "command-flags",
        lambda: original() + "\n| `bulk_translate start` | `--new-flag` | New. |",
    )
    assert docs_reference.regenerated(page.read_text()) != page.read_text()
