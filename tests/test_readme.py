"""README.md is the front door: short, its links work, its install steps are the tested ones.

The install steps (docs/getting-started.md) say what works for a new user, checked against the
code here; ``tests/e2e/test_readme_project.py`` follows them on a real project with workers.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

from tests.readme_project import INSTALL_STEPS, readme_blocks
from wagtail_bulk_translate.localize.target_writer import page_slug
from wagtail_bulk_translate.translators.pseudo import pseudo_localize

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FRONT_DOOR_BYTES = 15_000
RELATIVE_LINK = re.compile(r"\]\((?!https?://|mailto:)([^)#\s]+)(?:#([^)\s]+))?\)")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
CHECKOUT_PLACEHOLDER = "/path/to/wagtail-bulk-translate"


def pip_targets(block: str) -> list[str]:
    return [shlex.split(line)[2] for line in block.splitlines() if line.startswith("pip install")]


def test_install_from_a_checkout_and_from_the_built_wheel_beside_the_package_index():
    checkout, wheel = pip_targets(readme_blocks("install-from-checkout")[0])

    assert checkout == CHECKOUT_PLACEHOLDER  # a checkout is what `pip install PATH` builds
    assert PROJECT["name"] == "wagtail-bulk-translate"
    # `make package-check` builds dist/NAME-VERSION-py3-none-any.whl (a pure-Python wheel).
    name = PROJECT["name"].replace("-", "_")
    assert wheel == f"{CHECKOUT_PLACEHOLDER}/dist/{name}-{PROJECT['version']}-py3-none-any.whl"
    for page in (README, INSTALL_STEPS):
        assert "pip install wagtail-bulk-translate django-tasks-db" in page.read_text()


def test_the_first_configuration_needs_no_key_and_deepl_is_a_later_step():
    settings = "\n".join(readme_blocks("settings"))

    assert "translators.pseudo.PseudoTranslator" in settings
    assert "DeepLTranslator" not in settings and "DEEPL_AUTH_KEY" not in " ".join(
        readme_blocks("first-run")
    )
    assert "translators.deepl.DeepLTranslator" in readme_blocks("deepl-settings")[0]
    assert "DEEPL_AUTH_KEY" in readme_blocks("deepl-run")[0]


def test_the_slug_the_readme_shows_for_the_pseudo_translator_is_the_one_written():
    shown = re.search(r"`/en/about-us/` becomes\s+`/fr/([^/`]+)/`", INSTALL_STEPS.read_text())

    assert shown, "the install steps no longer say what /en/about-us/ becomes"
    assert shown.group(1) == page_slug(pseudo_localize("About us", "fr"))


def heading_anchors(markdown: str) -> set[str]:
    """The anchors headings get (as mkdocs and GitHub make them, for these plain headings)."""
    anchors = set()
    for title in re.findall(r"^#+ (.+)$", markdown, re.MULTILINE):
        slug = re.sub(r"[^\w\s-]", "", title.lower()).strip()
        anchors.add(re.sub(r"[\s]+", "-", slug))
    return anchors


def test_the_readme_is_a_front_door_under_15_kb():
    assert len(README.read_bytes()) < FRONT_DOOR_BYTES


def test_every_relative_link_of_the_readme_leads_to_a_file_and_heading_that_exist():
    links = RELATIVE_LINK.findall(README.read_text())
    assert len(links) > 20
    for target, anchor in links:
        path = ROOT / target
        assert path.exists(), target
        if anchor:
            assert anchor in heading_anchors(path.read_text()), f"{target}#{anchor}"
