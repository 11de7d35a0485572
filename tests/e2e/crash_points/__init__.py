"""A test-only Django app that kills its own worker process at a chosen point of a unit.

Installed by ``tests.e2e.settings`` when ``WBT_CRASH_AT`` is set. Each crash point fires once
per test (a marker file in ``WBT_CRASH_DIR`` records it), with SIGKILL: no cleanup, no
``finally``, exactly like the OOM killer or a lost machine.
"""
