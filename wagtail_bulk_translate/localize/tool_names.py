"""The ``tool_name`` a run's machine translations are stored with, and when one is outdated.

A StringTranslation a run writes keeps the translator's class, its profile (for a named one)
and, for translators whose output depends on more than the text (a language model's model,
prompt and glossary), their output signature: ``"OpenAITranslator (bulk, profile gpt, output
0123456789abcdef)"``. Kept on the StringTranslation itself, so translation memory, the plan and
the coverage report see it without a table of ours, and wagtail-localize's editor shows it
("Translated with …").

A machine translation is outdated for a locale (a ``changed`` run translates it again) when its
class's output signature changed, or when another profile wrote it (with
``RETRANSLATE_ON_PROFILE_CHANGE``). Translations written before profiles carry none: they count
as the profile ``"default"``'s, and as any profile's of their own class, so naming a profile for
the translator a site already used re-bills nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import Q
from wagtail_localize.models import StringTranslation

from ..conf import get_settings
from ..translators.profiles import DEFAULT_PROFILE

TOOL_NAME = re.compile(
    r"^(?P<cls>.+?) \(bulk(?:, profile (?P<profile>[A-Za-z0-9_-]+))?"
    r"(?:, output (?P<signature>.+))?\)$"
)


@dataclass(frozen=True)
class Tool:
    class_name: str
    profile: str | None  # None: the profile "default", or written before profiles
    signature: str | None


def machine_tool_name(translator_class: str, signature: str = "", profile: str = "") -> str:
    """The tool name of what ``translator_class`` writes under the profile ``profile``."""
    name = translator_class.rsplit(".", 1)[-1]
    parts = ["bulk"]
    if profile and profile != DEFAULT_PROFILE:
        parts.append(f"profile {profile}")
    if signature:
        parts.append(f"output {signature[:16]}")
    return f"{name} ({', '.join(parts)})"


def parse_tool(tool_name: str) -> Tool | None:
    """The parts of a run's tool name; None for anything else (a person, wagtail-localize's
    own machine translation)."""
    found = TOOL_NAME.match(tool_name or "")
    if found is None:
        return None
    return Tool(found["cls"], found["profile"], found["signature"])


def is_signed(tool_name: str) -> bool:
    tool = parse_tool(tool_name)
    return tool is not None and tool.signature is not None


def can_be_outdated(tool_name: str) -> bool:
    """Whether anything can be outdated by this current tool: it has an output signature or
    names a profile (DeepL or pseudo under the only profile outdate nothing)."""
    tool = parse_tool(tool_name)
    return tool is not None and (tool.signature is not None or tool.profile is not None)


def is_outdated_tool(tool_name: str, current_tool: str) -> bool:
    """Whether a machine translation written by ``tool_name`` is outdated for ``current_tool``
    (the same rule as :func:`outdated_tool_names`, for one row)."""
    existing, current = parse_tool(tool_name), parse_tool(current_tool)
    if existing is None or current is None or tool_name == current_tool:
        return False
    by_profile = get_settings().RETRANSLATE_ON_PROFILE_CHANGE
    if existing.class_name == current.class_name:
        if current.signature and existing.signature != current.signature:
            return True
        return bool(
            by_profile
            and current.profile
            and existing.profile
            and existing.profile != current.profile
        )
    if not by_profile:
        return False
    return existing.profile != current.profile


def outdated_tool_names(current_tool: str) -> Q:
    """The machine translations :func:`is_outdated_tool` calls outdated, as a filter."""
    current = parse_tool(current_tool)
    if current is None:
        return Q(pk__in=[])
    same_class = Q(tool_name__startswith=f"{current.class_name} (bulk")
    outdated = Q(pk__in=[])
    if current.signature:
        outdated |= same_class & ~Q(tool_name__endswith=f", output {current.signature})")
    if get_settings().RETRANSLATE_ON_PROFILE_CHANGE:
        any_profile = Q(tool_name__contains=", profile ")
        other_class = Q(tool_name__contains=" (bulk") & ~same_class
        if current.profile:
            other_profile = ~(
                Q(tool_name__contains=f", profile {current.profile},")
                | Q(tool_name__endswith=f", profile {current.profile})")
            )
            outdated |= same_class & any_profile & other_profile
            outdated |= other_class & other_profile
        else:
            outdated |= other_class & any_profile
    return (
        Q(translation_type=StringTranslation.TRANSLATION_TYPE_MACHINE)
        & outdated
        & ~Q(tool_name=current_tool)
    )
