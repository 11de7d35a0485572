"""Benchmark 8: reverting a run, and promoting a canary; time and queries per unit.

A first translation of half of ``sample`` pages into every target locale is reverted (in
process, as the revert task does it). Then a canary of a tenth of the units of the other half
is run and promoted; the promoted run's processing is measured. For the record there is no
baseline: wagtail-localize has neither.
"""

from __future__ import annotations

from .harness import (
    Config,
    Measure,
    Result,
    check_succeeded,
    content_pages,
    measure,
    pages_scope,
    process_in_process,
    start_bulk_run,
)


def run(config: Config) -> list[Result]:
    pages = content_pages(config.sample)
    revert = measure_revert(pages[0::2], config.targets)
    promote = measure_promote(pages[1::2], config.targets)
    return [
        *per_unit("8 revert", revert, "reverting a finished first translation"),
        *per_unit("8 canary promote", promote, "processing the promoted run (canary units reused)"),
    ]


def per_unit(name: str, measured: Measure, notes: str) -> list[Result]:
    notes = f"{notes}; {measured.units} units"
    return [
        Result(name, "ms per unit", round(measured.ms_per_unit, 2), None, "", None, notes),
        Result(name, "queries per unit", round(measured.queries_per_unit, 1), None, "", None,
               notes),
    ]  # fmt: skip


def measure_revert(pages: list, targets: list[str]) -> Measure:
    from wagtail_bulk_translate.api import start_revert
    from wagtail_bulk_translate.models import Run
    from wagtail_bulk_translate.revert.undo import revert_some

    run = start_bulk_run(pages_scope(pages), targets)
    process_in_process(run.pk)
    check_succeeded(run.pk)
    units = run.units.filter(status="succeeded").count()

    def revert() -> None:
        start_revert(run.pk)
        while not revert_some(run.pk, time_budget=3600):
            pass

    result = measure(revert, units)
    status = Run.objects.get(pk=run.pk).status
    if status != "reverted":
        raise RuntimeError(f"The revert ended {status}")
    return result


def measure_promote(pages: list, targets: list[str]) -> Measure:
    from wagtail_bulk_translate.api import promote_canary

    units = len(pages) * len(targets)
    canary = start_bulk_run(pages_scope(pages), targets, canary_size=max(1, units // 10))
    process_in_process(canary.pk)
    check_succeeded(canary.pk)
    holder: list[int] = []

    def promote() -> None:
        promoted = promote_canary(canary.pk)
        holder.append(promoted.pk)
        process_in_process(promoted.pk)

    result = measure(promote, units)
    check_succeeded(holder[0])
    return result
