"""A Wagtail project set up exactly as the install steps (docs/getting-started.md) say.

``wagtail start`` generates the project; the settings and URL code blocks of the install steps
(those marked ``<!-- readme-project: NAME -->``) are written into it, and the commands of its marked
shell blocks are read from there too, so the steps and what the tests run cannot drift apart.
Used by ``tests/e2e/test_readme_project.py`` and by ``make package-check`` (which builds the
project in a fresh virtualenv holding only the built wheel)::

    python tests/readme_project.py DIRECTORY [--python PYTHON]
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

# The install steps live in the docs (README.md links to them); their marked blocks are run here.
INSTALL_STEPS = Path(__file__).resolve().parent.parent / "docs" / "getting-started.md"
PROJECT_NAME = "mysite"
MARKED_BLOCK = re.compile(r"<!-- readme-project: ([\w-]+) -->\n```\w*\n(.*?)\n```", re.DOTALL)
# `wagtail start`'s urls.py ends with the catch-all the README replaces by its i18n_patterns.
GENERATED_CATCH_ALL = "urlpatterns = urlpatterns + ["


def readme_blocks(name: str) -> list[str]:
    """The code of the install steps' blocks marked ``readme-project: NAME``, in their order."""
    marked = MARKED_BLOCK.findall(INSTALL_STEPS.read_text())
    blocks = [code for marker, code in marked if marker == name]
    if not blocks:
        raise LookupError(
            f"{INSTALL_STEPS} has no code block marked <!-- readme-project: {name} -->"
        )
    return blocks


def readme_commands(name: str) -> list[list[str]]:
    """The ``python manage.py …`` lines of the marked shell blocks, as ``manage.py`` argv."""
    commands = []
    for block in readme_blocks(name):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words[:2] == ["python", "manage.py"]:
                commands.append(words[1:])
    return commands


def start_project(directory: Path, python: str) -> None:
    directory.mkdir(parents=True)
    subprocess.run(
        [python, "-m", "wagtail.bin.wagtail", "start", PROJECT_NAME, str(directory)],
        check=True,
        capture_output=True,
    )


def apply_readme(directory: Path, extra_settings: str = "") -> None:
    """Append the install steps' settings to the generated settings and swap in its URL patterns."""
    settings = directory / PROJECT_NAME / "settings" / "base.py"
    added = "\n\n".join(readme_blocks("settings"))
    settings.write_text(
        f"{settings.read_text()}\n\n# From docs/getting-started.md\n{added}\n{extra_settings}"
    )
    urls = directory / PROJECT_NAME / "urls.py"
    generated = urls.read_text()
    if GENERATED_CATCH_ALL not in generated:
        raise LookupError(
            f"{urls} no longer ends with {GENERATED_CATCH_ALL!r}: update docs/getting-started.md"
        )
    kept = generated[: generated.index(GENERATED_CATCH_ALL)]
    urls.write_text(f"{kept}# From docs/getting-started.md\n{readme_blocks('urls')[0]}\n")


def build_project(directory: Path, python: str = sys.executable, extra_settings: str = "") -> Path:
    """A new ``wagtail start`` project in DIRECTORY (which must not exist), set up per the steps."""
    start_project(directory, python)
    apply_readme(directory, extra_settings)
    return directory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="Where to create it (must not exist).")
    parser.add_argument("--python", default=sys.executable, help="Python that has Wagtail.")
    options = parser.parse_args()
    print(build_project(options.directory, options.python))


if __name__ == "__main__":
    main()
