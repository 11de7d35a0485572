"""Tokens and money of runs whose translator pays by the token (a language model).

Sums over the billing ledger's requests (``SpentRequest``): a run whose translator reported no
spend (DeepL bills characters) has none, and every report leaves the lines out.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypeVar, cast

from django.db.models import DecimalField, OuterRef, QuerySet, Subquery, Sum

from ..conf import get_settings
from ..engine.ledger import spend
from ..models import Run, SpentRequest
from ..translators.base import Spend
from ..translators.loading import TranslatorLoadError, load_translator_class, reports_money
from ..translators.pins import run_pins

R = TypeVar("R", bound=Run)


def spend_report(run: Run) -> dict[str, Any] | None:
    """The run's tokens and cost as JSON (None: its translator bills characters)."""
    return spend_dict(spend(run))


def bills_by_token(run: Run) -> bool:
    """Whether every translator of the run pays by the token (a language model): its reports
    show tokens and cost, never "characters billed" (it bills none)."""
    classes = {pin.class_path for pin in run_pins(run).values()} or {run.translator_class}
    try:
        return all(reports_money(load_translator_class(path)) for path in classes)
    except TranslatorLoadError:  # the class is gone since: what the ledger holds tells
        return SpentRequest.objects.filter(run=run).exists()


def spend_dict(total: Spend | None) -> dict[str, Any] | None:
    if total is None:
        return None
    return {
        "requests": total.requests,
        "prompt_tokens": total.prompt_tokens,
        "completion_tokens": total.completion_tokens,
        "cost": str(money(total.cost)),
        "currency": get_settings().CURRENCY,
    }


def money(cost: float) -> Decimal:
    """Costs of a few cents are common with language models: four places below one unit."""
    places = Decimal("0.01") if cost >= 1 else Decimal("0.0001")
    return Decimal(str(cost)).quantize(places)


def spend_text(report: dict[str, Any]) -> str:
    """ "12,345 prompt + 2,345 completion tokens in 12 requests, 0.0431 EUR"."""
    return (
        f"{report['prompt_tokens']:,} prompt + {report['completion_tokens']:,} completion "
        f"tokens in {report['requests']:,} requests, {report['cost']} {report['currency']}"
    )


def annotate_spend(runs: QuerySet[R]) -> QuerySet[R]:
    """Each run's tokens and cost (``spend_tokens``, ``spend_cost``; None without spend), as
    subqueries: the listing's unit counts join the units, which would multiply a join here."""
    of_run = SpentRequest.objects.filter(run=OuterRef("pk")).values("run").order_by()
    tokens = of_run.annotate(n=Sum("prompt_tokens") + Sum("completion_tokens")).values("n")
    cost = of_run.annotate(c=Sum("cost")).values("c")
    annotated = runs.annotate(
        spend_tokens=Subquery(tokens),
        spend_cost=Subquery(cost, output_field=DecimalField()),
    )
    return cast("QuerySet[R]", annotated)


def annotated_spend_text(run: Any) -> str:
    """What the listing and the dashboard show for a run of ``annotate_spend`` ("" without)."""
    if getattr(run, "spend_tokens", None) is None:
        return ""
    return f"{run.spend_tokens:,} tokens, {money(float(run.spend_cost))} {get_settings().CURRENCY}"
