"""Benchmarks: our pipeline against wagtail-localize's own path, measured in the same run.

    make benchmark            # or: .venv/bin/python benchmarks/run.py [--pages N]

A fresh SQLite database is seeded with the demo site. The baseline translates pages the way an
editor does with wagtail-localize's buttons (translate the page, machine-translate it, publish),
one (page, locale) at a time, into German. Our pipeline translates as many other pages of the
same kinds with bulk runs (first locale, another locale, unchanged, a refresh into two locales),
processed in-process by the worker. Both use the
instant pseudo translator, so the numbers are the cost of the pipelines themselves. Results are
ratios against the baseline; the table is written to benchmarks/results.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup_django(database: Path) -> None:
    sys.path[:0] = [str(ROOT / "sandbox"), str(ROOT)]
    os.environ["SQLITE_PATH"] = str(database)
    os.environ.pop("DATABASE_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "sandbox.settings"
    import django

    django.setup()


@dataclass
class Measure:
    label: str
    units: int
    queries: int
    seconds: float

    @property
    def queries_per_unit(self) -> float:
        return self.queries / self.units

    @property
    def ms_per_unit(self) -> float:
        return 1000 * self.seconds / self.units


def measured(label: str, units: int, action) -> Measure:
    from django.db import connection

    count = 0

    def counter(execute, sql, params, many, context):
        nonlocal count
        count += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(counter):
        started = time.perf_counter()
        action()
        seconds = time.perf_counter() - started
    return Measure(label, units, count, seconds)


def content_pages(limit: int):
    from wagtail.models import Page

    return list(
        Page.objects.filter(locale__language_code="en", depth__gt=1).order_by("path")[:limit]
    )


def baseline(pages, locale_code: str) -> Measure:
    """wagtail-localize's editor path: translate the page, machine-translate, publish."""
    from django.contrib.auth import get_user_model
    from wagtail.models import Locale
    from wagtail_localize.models import Translation, TranslationSource
    from wagtail_localize.views.edit_translation import apply_machine_translation

    from wagtail_bulk_translate.translators.pseudo import PseudoTranslator

    user = get_user_model().objects.get(username="admin")
    locale = Locale.objects.get(language_code=locale_code)
    translator = PseudoTranslator({})

    def translate_all():
        for page in pages:
            source, _created = TranslationSource.update_or_create_from_instance(page.specific)
            translation, _created = Translation.objects.get_or_create(
                source=source, target_locale=locale
            )
            translation.save_target(user=user, publish=False)
            apply_machine_translation(translation.pk, user, translator)
            translation.save_target(user=user, publish=True)

    return measured("wagtail-localize, page by page (baseline)", len(pages), translate_all)


def bulk_run(pages, locale_codes: list[str], label: str, mode: str = "changed") -> Measure:
    from wagtail_bulk_translate.api import start_run
    from wagtail_bulk_translate.engine.coordinator import coordinate
    from wagtail_bulk_translate.engine.worker import process_run
    from wagtail_bulk_translate.models import Run

    run = start_run(
        scope={"objects": [["wagtailcore.Page", str(p.pk)] for p in pages]},
        source_locale="en",
        target_locales=locale_codes,
        mode=mode,
        publish_policy="publish",
    )

    def process():
        while not coordinate(run.pk).done:
            pass
        while process_run(run.pk, time_budget=3600).more_work:
            pass

    result = measured(label, len(pages) * len(locale_codes), process)
    run = Run.objects.get(pk=run.pk)
    assert run.status == "succeeded", run_summary_text(run)
    return result


def run_summary_text(run) -> str:
    from wagtail_bulk_translate.api import run_summary

    return str(run_summary(run))


def enumeration_memory(scale: int) -> int:
    """Peak traced memory of enumerating the whole site ``scale`` times over."""
    from wagtail.models import Locale

    from wagtail_bulk_translate.api import whole_site_scope
    from wagtail_bulk_translate.scope.enumeration import Enumerator

    source = Locale.objects.get(language_code="en")
    scope = whole_site_scope(source)
    tracemalloc.start()
    for _ in range(scale):
        enumerator = Enumerator(scope, source, batch_size=50)
        cursor, done = None, False
        while not done:
            batch = enumerator.next_batch(cursor)
            cursor, done = batch.cursor, batch.done
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=60, help="pages per measurement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(Path(tmp) / "bench.sqlite3")
        from django.core.management import call_command

        from demo.content import ensure_admin_user, seed_demo_content

        call_command("migrate", verbosity=0)
        seed_demo_content(pages=3 * args.pages + 10)
        ensure_admin_user()
        # Disjoint sets of pages: no pipeline benefits from another's extraction.
        pages = content_pages(3 * args.pages)
        theirs, ours_one, ours_three = pages[0::3], pages[1::3], pages[2::3]
        three = ["de", "fr", "es"]
        rows = [
            baseline(theirs, "de"),
            bulk_run(ours_one, ["de"], "bulk run, first translation, 1 locale"),
            bulk_run(ours_one, ["fr"], "bulk run, a second locale later"),
            bulk_run(ours_three, three, "bulk run, first translation, 3 locales at once"),
            bulk_run(ours_three, three, "bulk run, 3 locales, unchanged (skipped)"),
            bulk_run(ours_three, three, "bulk run, 3 locales, refresh", "refresh"),
        ]
        peak_small = enumeration_memory(1)
        report = format_report(rows, args.pages, peak_small)
    print(report)
    (ROOT / "benchmarks" / "results.md").write_text(report + "\n", encoding="utf-8")


def format_report(rows: list[Measure], pages: int, peak_bytes: int) -> str:
    base = rows[0]
    lines = [
        f"Pages: {pages}; SQLite; pseudo translator; Python {sys.version.split()[0]}.",
        "",
        "| pipeline | units | queries/unit | ms/unit | queries vs baseline | time vs baseline |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.label} | {row.units} | {row.queries_per_unit:.1f} | {row.ms_per_unit:.1f} "
            f"| {row.queries_per_unit / base.queries_per_unit:.2f} x "
            f"| {row.ms_per_unit / base.ms_per_unit:.2f} x |"
        )
    lines += ["", f"Enumerating the whole site: peak {peak_bytes / 1024:.0f} KiB traced memory."]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
