"""Reading a translator's numeric options: a wrong value is a configuration error naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import TranslatorConfigError


def option_number(options: Mapping[str, Any], name: str, default: Any, kind: type, who: str) -> Any:
    """``options[name]`` as ``kind`` (``default`` when unset); ``who`` names the translator."""
    value = options.get(name)
    if value is None:
        return default
    try:
        return kind(value)
    except (TypeError, ValueError) as err:
        raise TranslatorConfigError(
            f"{who}'s option {name} must be a number, not {value!r}."
        ) from err
