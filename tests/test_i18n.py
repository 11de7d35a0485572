"""The admin in the editors' languages: every shipped catalog is complete, compiled and loaded.

The reference is what ``makemessages`` extracts from the code today (run on a copy of the
package, so the shipped catalogs are not touched): a string marked in a template or in Python
and missing, untranslated or fuzzy in a catalog fails, as does a ``.mo`` file that is not the
compiled ``.po`` beside it (the wheel ships the ``.mo`` files: ``make package-check``).
"""

from __future__ import annotations

import gettext
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.utils import translation

from wagtail_bulk_translate.errors import ErrorCode

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "wagtail_bulk_translate"
LOCALE = PACKAGE / "locale"
# The languages editors asked for (issue 28); more may ship.
REQUIRED = {"fr", "de", "es", "nl", "pt_BR", "ja"}
SHIPPED = sorted(path.name for path in LOCALE.iterdir() if path.is_dir())


def catalog(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.po"


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """A catalog of every string marked in the code today, untranslated."""
    copy = tmp_path_factory.mktemp("extract") / "wagtail_bulk_translate"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("locale", "__pycache__"))
    (copy / "locale").mkdir()  # where makemessages writes (it needs the directory)
    subprocess.run(
        [sys.executable, str(ROOT / "sandbox" / "manage.py"), "makemessages", "-l", "en"],
        cwd=copy, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return copy / "locale" / "en" / "LC_MESSAGES" / "django.po"


def test_the_languages_editors_asked_for_ship():
    assert set(SHIPPED) >= REQUIRED


@pytest.mark.parametrize("language", SHIPPED)
def test_every_marked_string_is_translated_and_none_is_fuzzy(language, reference):
    # msgcmp fails on a msgid of the reference missing from the catalog, untranslated or fuzzy.
    result = subprocess.run(
        ["msgcmp", str(catalog(language)), str(reference)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    check = subprocess.run(
        ["msgfmt", "--check", "-o", "/dev/null", str(catalog(language))],
        capture_output=True, text=True,
    )  # fmt: skip
    assert check.returncode == 0, check.stderr


@pytest.mark.parametrize("language", SHIPPED)
def test_the_shipped_mo_file_is_the_compiled_catalog(language, tmp_path):
    compiled = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "-o", str(compiled), str(catalog(language))], check=True)
    shipped = catalog(language).with_suffix(".mo")

    with open(compiled, "rb") as fresh, open(shipped, "rb") as committed:
        assert (
            gettext.GNUTranslations(committed)._catalog == gettext.GNUTranslations(fresh)._catalog
        )


@pytest.mark.parametrize("language", SHIPPED)
def test_django_loads_the_plugins_catalog(language):
    english = str(ErrorCode.UNCHANGED.label)
    with translation.override(language.replace("_", "-").lower()):
        assert str(ErrorCode.UNCHANGED.label) != english
