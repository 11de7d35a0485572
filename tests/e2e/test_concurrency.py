"""Several real worker processes on one run: all units succeed, nothing is translated twice."""

from __future__ import annotations

import json

from tests.e2e.helpers import (
    assert_run_is_whole,
    manage,
    read_translator_log,
    sent_twice,
    translate_seeded_site,
)

DISTINCT_TEXTS = """
import json
from wagtail.models import Locale
from wagtail_bulk_translate.models import Run
from wagtail_bulk_translate.runs.preflight import sample_texts
from wagtail_bulk_translate.scope.definition import Scope
from wagtail_bulk_translate.scope.enumeration import iter_scope
run = Run.objects.get()
objects = list(iter_scope(Scope.from_json(run.scope), run.source_locale))
print(json.dumps(sorted(sample_texts(objects))))
"""


def test_four_workers_translate_each_string_once(crash_env):
    # Nobody is killed here: a normal lease, so a slow moment on a busy machine (four writers on
    # SQLite) never hands a live worker's units to another one.
    overrides = json.loads(crash_env["WBT_SETTINGS"])
    crash_env["WBT_SETTINGS"] = json.dumps({**overrides, "LEASE_SECONDS": 300})
    summary, pool = translate_seeded_site(crash_env, pages=160, workers=4, timeout=600)
    assert summary["units_total"] >= 500
    assert pool.deaths == 0
    assert_run_is_whole(crash_env, summary)
    log = read_translator_log(crash_env["translator_log"])
    assert sent_twice(log) == [], "a string was translated twice"
    # Exactly the work one worker would have done: every distinct text once per locale.
    distinct = json.loads(manage(crash_env, "shell", "--no-imports", "-c", DISTINCT_TEXTS).stdout)
    for code in ("fr", "de", "es"):
        assert sorted(text for _pid, _call, locale, text in log if locale == code) == distinct
