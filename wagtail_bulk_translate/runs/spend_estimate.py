"""The preflight's tokens and money, for translators that pay by the token.

The translator estimates its own spend (``estimate_spend()``: it knows its prompt, its batching
and its price table) for the texts a run would send into each locale, with the context a run
would give them; a sampled preflight scales the figures up like its characters.
"""

from __future__ import annotations

from wagtail.models import Locale

from ..translators.base import BulkTranslator, Spend, TextContext


def estimate_spend(
    translator: BulkTranslator,
    source: Locale,
    billable: dict[Locale, set[str]],
    contexts: dict[str, TextContext],
    scale: float,
) -> Spend | None:
    """The translator's estimate for every locale, summed and scaled (None: it bills
    characters, or has nothing to send)."""
    total: Spend | None = None
    for locale, texts in billable.items():
        ordered = sorted(texts, key=lambda t: (contexts[t].object_key, contexts[t].position))
        context = {text: contexts[text] for text in ordered}
        estimate = translator.estimate_spend(source, locale, ordered, context)
        if estimate is not None:
            total = estimate if total is None else total + estimate
    return scaled(total, scale) if total is not None else None


def scaled(spend: Spend, scale: float) -> Spend:
    return Spend(
        requests=round(spend.requests * scale),
        prompt_tokens=round(spend.prompt_tokens * scale),
        completion_tokens=round(spend.completion_tokens * scale),
        cost=spend.cost * scale,
    )
