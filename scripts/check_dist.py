"""Check the built sdist and wheel: every file of the package inside, and complete metadata.

    python scripts/check_dist.py dist/

Lists the wheel's files that are not Python modules (migrations, templates, static files) so a
person can see them, and exits 1 naming each problem: a file of the source package missing
from the wheel or the sdist, a stray top-level directory in the wheel (tests, sandbox), a
missing metadata field, an unknown trove classifier, a long description that is not README.md.
Run by ``make package-check`` after ``python -m build`` and ``twine check``.
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from email import message_from_string
from email.message import Message
from pathlib import Path

from trove_classifiers import classifiers as KNOWN_CLASSIFIERS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "wagtail_bulk_translate"
REQUIRED_FIELDS = (
    "Name",
    "Version",
    "Summary",
    "License-Expression",
    "License-File",
    "Requires-Python",
    "Keywords",
    "Project-URL",
    "Classifier",
    "Requires-Dist",
)


def source_files() -> set[str]:
    """The package's files in the source tree, as paths inside a distribution."""
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / PACKAGE).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def sdist_files(sdist: Path) -> set[str]:
    # Paths start with "name-version/"; compare what follows.
    with tarfile.open(sdist) as archive:
        return {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}


def wheel_metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return message_from_string(archive.read(name).decode())


def missing(expected: set[str], found: set[str], where: str) -> list[str]:
    return [f"{path} is not in the {where}" for path in sorted(expected - found)]


def stray_wheel_entries(files: set[str]) -> list[str]:
    tops = {name.split("/", 1)[0] for name in files}
    return [
        f"the wheel holds {top}/, which is not the package"
        for top in sorted(tops)
        if top != PACKAGE and not top.endswith(".dist-info")
    ]


def metadata_problems(metadata: Message) -> list[str]:
    problems = [f"metadata has no {field}" for field in REQUIRED_FIELDS if not metadata[field]]
    problems += [
        f"unknown classifier {classifier!r}"
        for classifier in metadata.get_all("Classifier") or []
        if classifier not in KNOWN_CLASSIFIERS
    ]
    if metadata["Description-Content-Type"] != "text/markdown":
        problems.append("the long description is not declared as text/markdown")
    if metadata.get_payload().strip() != (ROOT / "README.md").read_text().strip():
        problems.append("the long description is not README.md")
    return problems


def the_one(directory: Path, pattern: str) -> Path:
    found = sorted(directory.glob(pattern))
    if len(found) != 1:
        sys.exit(f"Expected one {pattern} in {directory}, found {len(found)}: build afresh.")
    return found[0]


def main() -> None:
    directory = Path(sys.argv[1] if len(sys.argv) > 1 else "dist")
    wheel, sdist = the_one(directory, "*.whl"), the_one(directory, "*.tar.gz")
    in_wheel, expected = wheel_files(wheel), source_files()
    print(f"{wheel.name}: {len(in_wheel)} files; migrations, templates and static files:")
    for path in sorted(in_wheel & expected):
        if not path.endswith(".py") or "/migrations/0" in path:
            print(f"  {path}")
    problems = [
        *missing(expected, in_wheel, "wheel"),
        *missing(
            expected | {"README.md", "LICENSE", "pyproject.toml"}, sdist_files(sdist), "sdist"
        ),
        *stray_wheel_entries(in_wheel),
        *metadata_problems(wheel_metadata(wheel)),
    ]
    for problem in problems:
        print(f"PROBLEM: {problem}")
    if problems:
        sys.exit(1)
    print(f"{wheel.name} and {sdist.name}: complete.")


if __name__ == "__main__":
    main()
