"""What the benchmarks share: Django set-up, measuring queries and time, results, and the two
pipelines compared (a bulk run, and wagtail-localize's per-object path)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = "benchmarks.settings"
ALL_TARGETS = ["fr", "de", "es", "it", "nl", "pt", "pl", "sv"]


@dataclass
class Config:
    """What the runner hands every benchmark (from the command line)."""

    pages: int
    locales: int
    sample: int
    workdir: str
    database_url: str = ""
    status_units: int = 100_000

    @property
    def targets(self) -> list[str]:
        return ALL_TARGETS[: self.locales]


@dataclass
class Result:
    """One line of the table and one object of latest.json.

    ``ratio`` is ours / baseline; ``target`` says what it should be, ``met`` whether it is
    (None when there is no target, e.g. a figure reported for the record).
    """

    name: str
    metric: str
    ours: float
    baseline: float | None
    target: str
    met: bool | None
    notes: str = ""
    ratio: float | None = None

    def __post_init__(self) -> None:
        if self.ratio is None and self.baseline:
            self.ratio = self.ours / self.baseline

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def process_environment(database: str, translator: str | None = None) -> dict[str, str]:
    """Environment of a benchmark or worker process using ``database`` (a SQLite path or a
    PostgreSQL URL)."""
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = SETTINGS
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "sandbox"), str(ROOT)])
    env.pop("DATABASE_URL", None)
    env.pop("SQLITE_PATH", None)
    if database.startswith("postgres"):
        env["DATABASE_URL"] = database
    else:
        env["SQLITE_PATH"] = database
    if translator is not None:
        env["BENCH_TRANSLATOR"] = translator
    return env


def setup_django(database: str) -> None:
    os.environ.update(process_environment(database))
    sys.path[:0] = [str(ROOT / "sandbox"), str(ROOT)]
    import django

    django.setup()


@dataclass
class Measure:
    queries: int
    seconds: float
    units: int = 1

    @property
    def queries_per_unit(self) -> float:
        return self.queries / max(self.units, 1)

    @property
    def ms_per_unit(self) -> float:
        return 1000 * self.seconds / max(self.units, 1)


@contextmanager
def counting_queries() -> Iterator[list[int]]:
    """Count the queries of the default connection inside the block (``box[0]``)."""
    from django.db import connection

    box = [0]

    def counter(execute, sql, params, many, context):
        box[0] += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(counter):
        yield box


def measure(action: Callable[[], Any], units: int = 1) -> Measure:
    with counting_queries() as box:
        started = time.perf_counter()
        action()
        seconds = time.perf_counter() - started
    return Measure(box[0], seconds, units)


def content_pages(limit: int | None = None, offset: int = 0) -> list[Any]:
    """Source pages without children (their parents are translated when the site is seeded),
    in tree order."""
    from wagtail.models import Page

    pages = Page.objects.filter(locale__language_code="en", depth__gt=2, numchild=0)
    pages = pages.order_by("path")
    return list(pages[offset : None if limit is None else offset + limit])


def ensure_target_locales(codes: list[str]) -> None:
    from wagtail.models import Locale

    for code in codes:
        Locale.objects.get_or_create(language_code=code)


def translate_structure(targets: list[str]) -> None:
    """Translate the pages that have children (home, sections) before anything is measured.

    A run translates the missing ancestors of the pages it is given, and wagtail-localize's
    per-object path needs them translated: with the structure in place both sides translate
    exactly the pages they are given.
    """
    from wagtail.models import Page

    ensure_target_locales(targets)
    parents = list(Page.objects.filter(locale__language_code="en", depth__gt=1, numchild__gt=0))
    run = start_bulk_run(pages_scope(parents), targets)
    process_in_process(run.pk)
    check_succeeded(run.pk)


def pages_scope(pages: list[Any]) -> dict[str, Any]:
    return {"objects": [["wagtailcore.Page", str(page.pk)] for page in pages]}


def start_bulk_run(scope: Any, targets: list[str], mode: str = "changed", **options: Any) -> Any:
    from wagtail_bulk_translate.api import start_run

    return start_run(
        scope=scope,
        source_locale="en",
        target_locales=targets,
        mode=mode,
        publish_policy=options.pop("publish_policy", "publish"),
        **options,
    )


def process_in_process(run_id: int) -> None:
    """Coordinate, then process every unit, in this process (no task queue, no waiting)."""
    from wagtail_bulk_translate.engine.worker import process_run

    enumerate_in_process(run_id)
    while process_run(run_id, time_budget=3600).more_work:
        pass


def enumerate_in_process(run_id: int) -> None:
    """Coordinator ticks until enumeration is done, each continuing with the last one's lease
    (as its continuation task would: a tick without the token waits for the lease to expire)."""
    from wagtail_bulk_translate.engine.coordinator import coordinate

    token = None
    while True:
        result = coordinate(run_id, token)
        if result.done:
            return
        token = result.continue_with or token


def check_succeeded(run_id: int) -> Any:
    from wagtail_bulk_translate.api import run_summary
    from wagtail_bulk_translate.models import Run

    run = Run.objects.get(pk=run_id)
    if run.status != "succeeded":
        raise RuntimeError(f"Run {run_id} ended {run.status}: {run_summary(run)}")
    return run


def bulk_translate(pages: list[Any], targets: list[str], mode: str = "changed") -> Measure:
    """A bulk run of ``pages`` into ``targets``, coordinated and processed in process."""
    run = start_bulk_run(pages_scope(pages), targets, mode)
    result = measure(lambda: process_in_process(run.pk), len(pages) * len(targets))
    check_succeeded(run.pk)
    return result


def per_object_baseline(pages: list[Any], targets: list[str]) -> Measure:
    """wagtail-localize's editor path, one (object, locale) at a time: translate the object
    (its source extracted once for all locales), machine-translate it, publish it — what an
    editor's buttons do."""
    from django.contrib.auth import get_user_model
    from wagtail.models import Locale
    from wagtail_localize.models import Translation, TranslationSource
    from wagtail_localize.views.edit_translation import apply_machine_translation

    from .translators import CountingTranslator

    user = get_user_model().objects.get(username="admin")
    locales = [Locale.objects.get(language_code=code) for code in targets]
    translator = CountingTranslator({})

    def translate_all() -> None:
        for page in pages:
            # Once per object, as the editor's "Translate" action does for all its locales.
            source, _created = TranslationSource.update_or_create_from_instance(page.specific)
            for locale in locales:
                translation, _created = Translation.objects.get_or_create(
                    source=source, target_locale=locale
                )
                translation.save_target(user=user, publish=False)
                apply_machine_translation(translation.pk, user, translator)
                translation.save_target(user=user, publish=True)

    return measure(translate_all, len(pages) * len(targets))


def at_most(value: float, bound: float) -> bool:
    return value <= bound


def rounded(value: float, digits: int = 3) -> float:
    return round(value, digits)
