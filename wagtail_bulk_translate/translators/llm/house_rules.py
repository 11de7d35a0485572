"""What the site's editors keep in the admin for a language pair, read for the prompt: the
glossary (terms and never-translate names) and the target locale's house style.

The translator's ``GLOSSARY`` and ``LOCALE_INSTRUCTIONS`` options are the configured defaults;
the admin's entries add to them, and an option wins where both name the same term or locale.
"""

from __future__ import annotations

from wagtail.models import Locale

from ...glossary.lookup import glossary_entries, house_style


def locale_id(code: str) -> int | None:
    return Locale.objects.filter(language_code=code).values_list("pk", flat=True).first()


def stored_terms(source_code: str, target_code: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """(source term → target term, never-translate terms) of the pair, from the admin."""
    source_id, target_id = locale_id(source_code), locale_id(target_code)
    if source_id is None or target_id is None:
        return {}, ()
    entries = glossary_entries(source_id, target_id)
    terms = {e.source: e.target for e in entries if not e.never_translate}
    keep = tuple(e.source for e in entries if e.never_translate)
    return terms, keep


def stored_instructions(target_code: str) -> str:
    """The admin's instructions for language models translating into ``target_code``."""
    target_id = locale_id(target_code)
    return house_style(target_id).instructions if target_id is not None else ""
