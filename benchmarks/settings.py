"""Settings of the benchmark processes (the runner's children and the worker processes).

The demo's settings, plus: more content languages (``--locales`` up to 8 targets), and the
translator the benchmark asks for through ``BENCH_TRANSLATOR`` (a JSON translator setting).
"""

import json
import os

from sandbox.settings import *  # noqa: F403

EXTRA_LANGUAGES = [
    ("it", "Italian"),
    ("nl", "Dutch"),
    ("pt", "Portuguese"),
    ("pl", "Polish"),
    ("sv", "Swedish"),
]
LANGUAGES = WAGTAIL_CONTENT_LANGUAGES = [*LANGUAGES, *EXTRA_LANGUAGES]  # noqa: F405

# Benchmarks measure the pipeline, not logging or debug bookkeeping of queries.
DEBUG = False

WAGTAIL_BULK_TRANSLATE = {
    **WAGTAIL_BULK_TRANSLATE,  # noqa: F405
    "TRANSLATOR": json.loads(
        os.environ.get("BENCH_TRANSLATOR", '{"CLASS": "benchmarks.translators.CountingTranslator"}')
    ),
    **json.loads(os.environ.get("BENCH_WBT_SETTINGS", "{}")),
}
