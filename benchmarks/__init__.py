"""``make bench``: every performance target of the plugin, measured side by side in one run.

Each benchmark is a module of this package with a ``run(config) -> list[Result]`` function; the
runner (``python -m benchmarks``) runs each in its own process against its own database and
writes ``benchmarks/results/latest.json``. See docs/benchmarks.md.
"""
