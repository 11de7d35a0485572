"""What a value of the ``WAGTAIL_BULK_TRANSLATE`` dict must be: type, range, nested keys.

Each key of the settings dict declares one :class:`Rule` (in settings.py); the system checks ask
the rule what is wrong with the configured value, and the settings reference
(docs/reference/settings.md) shows the rule's :meth:`Rule.describe`. A problem names the key,
the value and what was expected, so ``manage.py check`` says what to write instead.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One wrong value (or unknown key) under ``path``, e.g. ``['TRANSLATOR']['CLASS']``."""

    path: str
    message: str
    hint: str
    unknown_key: bool = False  # a key no declaration knows (a typo?), not a wrong value


def show(value: object) -> str:
    """The value as written in settings, with its type when the type is the problem."""
    return f"{value!r} ({type(value).__name__})"


def nearest_key(key: object, known: Iterable[str]) -> str | None:
    """The known key a misspelt one most probably meant (case and plurals forgiven)."""
    by_upper = {name.upper(): name for name in known}
    found = difflib.get_close_matches(str(key).upper(), list(by_upper), n=1, cutoff=0.6)
    return by_upper[found[0]] if found else None


def unknown_key_problem(setting: str, path: str, key: object, known: Iterable[str]) -> Problem:
    known = sorted(known)
    guess = nearest_key(key, known)
    message = f"{setting}{path} has an unknown key {key!r}"
    message += f": did you mean {guess}?" if guess else "."
    return Problem(
        f"{path}[{key!r}]",
        message,
        hint=f"Valid keys of {setting}{path}: {', '.join(known)}. Remove or rename the key "
        "(see the settings reference, docs/reference/settings.md).",
        unknown_key=True,
    )


class Rule:
    """What a value must be; subclasses say it in words and list what is wrong."""

    optional = False  # None is a valid value

    def describe(self) -> str:
        raise NotImplementedError

    def expected(self) -> str:
        return self.describe() + (", or None" if self.optional else "")

    def problems(self, setting: str, path: str, value: object) -> list[Problem]:
        if value is None and self.optional:
            return []
        if self.accepts(value):
            return self.nested_problems(setting, path, value)
        return [
            Problem(
                path,
                f"{setting}{path} is {show(value)}: expected {self.expected()}.",
                hint=f"Set {setting}{path} to {self.expected()}.",
            )
        ]

    def accepts(self, value: object) -> bool:
        raise NotImplementedError

    def nested_problems(self, setting: str, path: str, value: Any) -> list[Problem]:
        return []


def is_number(value: object) -> bool:
    # bool is an int to Python, never to a person writing settings.
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class Number(Rule):
    """An int or float, at least ``minimum`` (above it if ``exclusive``); ``integer`` refuses
    floats."""

    minimum: float = 0
    integer: bool = False
    exclusive: bool = False
    optional: bool = False

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a number"
        bound = "greater than" if self.exclusive else "of at least"
        return f"{kind} {bound} {self.minimum:g}"

    def accepts(self, value: object) -> bool:
        if not is_number(value) or (self.integer and not isinstance(value, int)):
            return False
        number = float(value)  # type: ignore[arg-type]
        return number > self.minimum if self.exclusive else number >= self.minimum


@dataclass(frozen=True)
class Flag(Rule):
    """True or False (not 0, 1 or "yes": a setting that reads as a switch is a boolean)."""

    def describe(self) -> str:
        return "True or False"

    def accepts(self, value: object) -> bool:
        return isinstance(value, bool)


@dataclass(frozen=True)
class Text(Rule):
    """A non-empty string, one of ``choices`` if given."""

    choices: tuple[str, ...] = ()
    optional: bool = False

    def describe(self) -> str:
        if self.choices:
            return "one of " + ", ".join(repr(choice) for choice in self.choices)
        return "a non-empty string"

    def accepts(self, value: object) -> bool:
        if not isinstance(value, str) or not value:
            return False
        return not self.choices or value in self.choices


@dataclass(frozen=True)
class AnyDict(Rule):
    """A dict whose content another part checks (a translator's own options)."""

    optional: bool = False

    def describe(self) -> str:
        return "a dict"

    def accepts(self, value: object) -> bool:
        return isinstance(value, Mapping)


@dataclass(frozen=True)
class ListOf(Rule):
    """A list or tuple of values that each follow ``item``."""

    item: Rule

    def describe(self) -> str:
        return f"a list of {self.item.describe().removeprefix('a ').removeprefix('an ')}s"

    def accepts(self, value: object) -> bool:
        return isinstance(value, list | tuple)

    def nested_problems(self, setting: str, path: str, value: Any) -> list[Problem]:
        return [
            p for i, v in enumerate(value) for p in self.item.problems(setting, f"{path}[{i}]", v)
        ]


@dataclass(frozen=True)
class OneOf(Rule):
    """A value following any one of ``rules`` (e.g. a name, or a list of names)."""

    rules: tuple[Rule, ...]

    def describe(self) -> str:
        return " or ".join(rule.describe() for rule in self.rules)

    def accepts(self, value: object) -> bool:
        return any(rule.accepts(value) for rule in self.rules)

    def nested_problems(self, setting: str, path: str, value: Any) -> list[Problem]:
        rule = next(rule for rule in self.rules if rule.accepts(value))
        return rule.nested_problems(setting, path, value)


@dataclass(frozen=True)
class DictOf(Rule):
    """A dict from keys following ``key`` to values following ``value``."""

    key: Rule
    value: Rule
    shape: str  # how it reads in the docs, e.g. '{"app_label.ModelName": ["field", ...]}'

    def describe(self) -> str:
        return f"a dict {self.shape}"

    def accepts(self, value: object) -> bool:
        return isinstance(value, Mapping)

    def nested_problems(self, setting: str, path: str, value: Any) -> list[Problem]:
        found: list[Problem] = []
        for key, item in value.items():
            if not self.key.accepts(key):
                found.append(
                    Problem(
                        f"{path}[{key!r}]",
                        f"{setting}{path} has the key {show(key)}: expected "
                        f"{self.key.describe()} as a key.",
                        hint=f"Write {setting}{path} as {self.shape}.",
                    )
                )
            found += self.value.problems(setting, f"{path}[{key!r}]", item)
        return found


@dataclass(frozen=True)
class Keys(Rule):
    """A dict with known keys only (``required`` ones present), each following its rule."""

    rules: Mapping[str, Rule]
    required: tuple[str, ...] = ()
    optional: bool = False

    def describe(self) -> str:
        keys = ", ".join(
            f"{k!r}" + ("" if k in self.required else " (optional)") for k in self.rules
        )
        return f"a dict with the keys {keys}"

    def accepts(self, value: object) -> bool:
        return isinstance(value, Mapping)

    def nested_problems(self, setting: str, path: str, value: Any) -> list[Problem]:
        found: list[Problem] = []
        for key in self.required:
            if key not in value:
                found.append(
                    Problem(
                        f"{path}[{key!r}]",
                        f"{setting}{path} has no {key!r} key.",
                        hint=f"Set {setting}{path}[{key!r}] to {self.rules[key].expected()}.",
                    )
                )
        for key, item in value.items():
            rule = self.rules.get(key)
            if rule is None:
                found.append(unknown_key_problem(setting, path, key, self.rules))
            else:
                found += rule.problems(setting, f"{path}[{key!r}]", item)
        return found
