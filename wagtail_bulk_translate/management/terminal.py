"""Output for a terminal: no control character from a model's text or a server's error.

Unit messages and run errors can quote a language model or a server word for word; printed
raw, an escape sequence in them (``\\x1b]0;…``, ``\\x1b[2J``) would retitle, clear or rewrite
the editor's terminal. Every management command of the plugin writes through
:class:`TerminalOutput` (``protect_output``), which drops control characters except newline and
tab, and the bidirectional overrides that make text read other than it is stored.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.management.base import BaseCommand, OutputWrapper

# C0 controls but tab and newline, DEL, C1 controls, and the bidi embedding / override /
# isolate characters (U+202A-U+202E, U+2066-U+2069).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: str) -> str:
    """``text`` without control characters (newlines and tabs kept)."""
    return CONTROL.sub("", text)


class TerminalOutput(OutputWrapper):
    """Django's OutputWrapper, writing ``terminal_text`` of each message (its own colours, added
    after, are kept)."""

    # Django's stubs type OutputWrapper.write as TextIOBase.write; it takes these arguments.
    def write(  # type: ignore[override]
        self, msg: str = "", style_func: Any = None, ending: str | None = None
    ) -> None:
        super().write(terminal_text(str(msg)), style_func, ending)


def protect_output(command: BaseCommand) -> None:
    """Make ``command`` write its stdout and stderr through TerminalOutput."""
    for name in ("stdout", "stderr"):
        current = getattr(command, name)
        if isinstance(current, TerminalOutput):
            continue
        wrapped = TerminalOutput(current._out, ending=current.ending)
        wrapped.style_func = current.style_func
        setattr(command, name, wrapped)
