"""The generated parts of the reference pages: every error code, command flag and public name.

``python scripts/docs_reference.py`` rewrites the blocks between ``<!-- generated: NAME -->`` and
``<!-- end generated -->`` in ``docs/reference/*.md`` from the code; ``tests/test_docs_reference``
fails when a page differs from what this prints (a code, flag or name missing from the page, or
on the page but gone from the code). Run it under the sandbox's settings (``make docs`` does).
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
BLOCK = re.compile(r"(<!-- generated: ([\w-]+) -->\n)(.*?)(<!-- end generated -->)", re.DOTALL)
COMMANDS = ("bulk_translate", "bulk_translate_janitor", "bulk_translate_locales")
# Options every Django command has: Django documents them.
DJANGO_OPTIONS = {
    "--help", "--version", "--verbosity", "--settings", "--pythonpath", "--traceback",
    "--no-color", "--force-color", "--skip-checks",
}  # fmt: skip


def cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def error_codes() -> str:
    from wagtail_bulk_translate.errors import ErrorCode

    rows = [f"| `{code.value}` | {cell(code.label)} |" for code in ErrorCode]
    return "\n".join(["| code | what an editor reads |", "|---|---|", *rows])


def summary(name: str, obj: object) -> str:
    """The first paragraph of a function's or class's docstring; a constant's value."""
    if not (inspect.isroutine(obj) or inspect.isclass(obj)):
        return f"`{obj!r}`"  # a constant's "docstring" would be its type's
    doc = inspect.getdoc(obj) or ""
    if doc.startswith(f"{name}("):  # a dataclass's generated signature, not a docstring
        return ""
    return doc.split("\n\n", 1)[0]


def public_api() -> str:
    from wagtail_bulk_translate import api

    rows = []
    for name in sorted(api.__all__, key=str.lower):
        first = summary(name, getattr(api, name))
        rows.append(f"| `{name}` | {cell(first)} |")
    return "\n".join(["| name | what it is |", "|---|---|", *rows])


def parser_actions(parser: argparse.ArgumentParser, prefix: str) -> Iterator[tuple[str, str, str]]:
    """(command, option, help) for each option of the parser and of its subcommands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parser_actions(sub, f"{prefix} {name}")
            continue
        options = [o for o in action.option_strings if o.startswith("--")] or action.option_strings
        if not options:
            yield prefix, action.dest.upper(), action.help or ""
        elif not DJANGO_OPTIONS & set(action.option_strings):
            yield prefix, ", ".join(action.option_strings), action.help or ""


def command_flags() -> str:
    from django.core.management import load_command_class

    rows = []
    for name in COMMANDS:
        parser = load_command_class("wagtail_bulk_translate", name).create_parser("manage.py", name)
        for command, option, text in parser_actions(parser, name):
            text = text % {"default": ""} if "%(default)" in text else text
            rows.append(f"| `{command}` | `{option}` | {cell(text)} |")
    return "\n".join(["| command | option | what it does |", "|---|---|---|", *rows])


GENERATORS = {"error-codes": error_codes, "public-api": public_api, "command-flags": command_flags}


def regenerated(text: str) -> str:
    return BLOCK.sub(lambda m: f"{m[1]}{GENERATORS[m[2]]()}\n{m[4]}", text)


def pages() -> list[Path]:
    return sorted(REFERENCE.glob("*.md"))


def main() -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "sandbox")]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sandbox.settings")
    import django

    django.setup()
    for page in pages():
        text = page.read_text()
        if (new := regenerated(text)) != text:
            page.write_text(new)
            print(f"updated {page.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
