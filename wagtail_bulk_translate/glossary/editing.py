"""Adding one term from where a translation went wrong (the review queue, ``review
retranslate --term``): the term is created, or its translation into the locale replaced."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from wagtail.log_actions import log

from ..errors import RunConfigurationError
from ..models import GlossaryTerm, GlossaryTranslation
from ..users import signed_in_user
from .changes import glossary_changed


def save_term(
    source_locale_id: int,
    target_locale_id: int,
    source_term: str,
    target_term: str = "",
    *,
    never_translate: bool = False,
    case_sensitive: bool = False,
    user: Any = None,
) -> GlossaryTerm:
    """The term of ``source_term`` with ``target_term`` as its translation into the target
    locale (a never-translate term needs none); an existing term keeps its other locales."""
    source_term, target_term = source_term.strip(), target_term.strip()
    if not source_term:
        raise RunConfigurationError("Give the term, as it is written in the source text.")
    if not never_translate and not target_term:
        raise RunConfigurationError(
            f"Give the translation of “{source_term}”, or mark it never to be translated."
        )
    with transaction.atomic():
        term, created = GlossaryTerm.objects.update_or_create(
            source_locale_id=source_locale_id,
            source_term=source_term,
            defaults={"never_translate": never_translate, "case_sensitive": case_sensitive},
        )
        if target_term:
            GlossaryTranslation.objects.update_or_create(
                term=term, target_locale_id=target_locale_id, defaults={"target_term": target_term}
            )
        log(
            instance=term,
            action="wagtail.create" if created else "wagtail.edit",
            user=signed_in_user(user),
        )
        glossary_changed(source_locale_id)
    return term
