"""What each translator profile of a run was sent and cost, from the billing ledger."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Count, Sum
from django.db.models.functions import Coalesce

from ..engine.ledger import Billing
from ..models import Run, SentText, SpentRequest
from ..translators.base import Spend
from ..translators.pins import legacy_pin, run_pins
from ..translators.profiles import DEFAULT_PROFILE, configured_profiles
from .spend import spend_dict


def locales_by_profile(run: Run, codes: dict[int, str]) -> dict[str, list[str]]:
    """{profile name: the run's target locale codes it translates}, in pinning order
    (``codes``: {target locale id: code})."""
    pins = run_pins(run) or {pk: legacy_pin(run) for pk in codes}
    found: dict[str, list[str]] = {}
    for locale_id, pin in pins.items():
        found.setdefault(pin.profile, []).append(codes.get(locale_id, str(locale_id)))
    return {name: sorted(locales) for name, locales in found.items()}


def class_of_profile(run: Run) -> dict[str, str]:
    pins = run_pins(run) or {0: legacy_pin(run)}
    return {pin.profile: pin.class_path.rsplit(".", 1)[-1] for pin in pins.values()}


def spend_by_profile(
    run: Run, codes: dict[int, str], billed: Billing, spend: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """Per profile of the run: its label, class, locales, texts and characters sent, what the
    provider billed and (for a language model) tokens and money. Ledger rows from before
    profiles count as the profile ``"default"``. A run of one profile takes its totals
    (``billed``, ``spend``) as they are."""
    labels = {name: profile.label for name, profile in configured_profiles().items()}
    classes = class_of_profile(run)
    locales = locales_by_profile(run, codes)
    if len(locales) == 1:
        ((name, codes_of),) = locales.items()
        return [
            profile_row(
                name,
                labels,
                classes,
                codes_of,
                billed.texts_sent,
                billed.characters_sent,
                billed.billed,
                spend,
            )
        ]
    sent = {
        row["profile"] or DEFAULT_PROFILE: row
        for row in SentText.objects.filter(run=run)
        .values("profile")
        .annotate(
            texts=Count("pk"),
            sent=Coalesce(Sum("sent_characters"), 0),
            billed=Coalesce(Sum("characters"), 0),
        )
        .order_by()
    }
    spent = {
        row["profile"] or DEFAULT_PROFILE: row
        for row in SpentRequest.objects.filter(run=run)
        .values("profile")
        .annotate(
            calls=Coalesce(Sum("calls"), 0),
            prompt=Coalesce(Sum("prompt_tokens"), 0),
            completion=Coalesce(Sum("completion_tokens"), 0),
            cost=Sum("cost"),
        )
        .order_by()
    }
    rows = []
    for name, codes_of in locales.items():
        texts: dict[str, Any] = dict(sent.get(name) or {})
        money = spent.get(name)
        total = None
        if money is not None:
            cost = float(money["cost"] or Decimal(0))
            total = Spend(money["calls"], money["prompt"], money["completion"], cost)
        rows.append(
            profile_row(
                name,
                labels,
                classes,
                codes_of,
                texts.get("texts", 0),
                texts.get("sent", 0),
                texts.get("billed", 0),
                spend_dict(total),
            )
        )
    return rows


def profile_row(
    name: str,
    labels: dict[str, str],
    classes: dict[str, str],
    locales: list[str],
    texts: int,
    characters: int,
    billed: int,
    spend: dict[str, Any] | None,
) -> dict[str, Any]:
    return {
        "profile": name,
        "label": labels.get(name, name),
        "translator": classes.get(name, ""),
        "locales": locales,
        "texts_sent": texts,
        "characters_sent": characters,
        "billed_characters": billed,
        "spend": spend,
    }
