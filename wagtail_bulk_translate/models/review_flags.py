"""How a stored review flag reads, in the language of whoever reads it.

Flags are found by a worker (in the site's default language) and read later by editors in
theirs, so a flag stores its code and its values, and its sentence is made when it is shown.
The sentence stored with the flag is what the command line prints, and what older flags (stored
before their values were) and held texts (whose reason is the translator's own) show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, ngettext

MISSING_TERM = "missing_term"
NEVER_TRANSLATE_CHANGED = "never_translate_changed"
UNCHANGED = "unchanged"
LENGTH_RATIO = "length_ratio"


def flag_message(code: str, params: Mapping[str, Any]) -> str:
    """The sentence of a flag, in the active language ("" for a code this module does not know)."""
    if code == MISSING_TERM:
        text = gettext("“%(term)s” should be translated as “%(target)s”, which is missing.")
    elif code == NEVER_TRANSLATE_CHANGED:
        text = ngettext(
            "“%(term)s” must never be translated, but the translation has it %(kept)d time "
            "instead of %(count)d.",
            "“%(term)s” must never be translated, but the translation has it %(kept)d times "
            "instead of %(count)d.",
            params["kept"],
        )
    elif code == UNCHANGED:
        text = gettext("The translation is the source text, unchanged.")
    elif code == LENGTH_RATIO:
        text = gettext(
            "The translation is %(ratio).2g times as long as the source (expected between "
            "%(minimum)g and %(maximum)g)."
        )
    else:
        return ""
    return text % params


def shown_message(flag: Mapping[str, Any]) -> str:
    """A stored flag's sentence for the reader: made again from its values when it has them."""
    params = flag.get("params")
    if params is not None:
        return flag_message(flag.get("code", ""), params) or flag.get("message", "")
    return flag.get("message", "")
