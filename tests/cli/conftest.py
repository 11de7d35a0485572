"""Fixtures of the command-line tests: the command run in-process, waiting made deterministic.

Commands run with ``call_command``. The task queue is the DummyBackend of the ``task_queue``
fixture, so nothing runs until a test drains it; for ``--wait`` the command's ``time.sleep``
is replaced by a hook that drains the queue (or does nothing, for the timeout).
"""

from __future__ import annotations

import time
import types
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from wagtail_bulk_translate.management.cli import controls as controls_module
from wagtail_bulk_translate.management.cli import waiting as waiting_module
from wagtail_bulk_translate.management.commands import bulk_translate as command_module


@pytest.fixture
def run_command(task_queue, django_capture_on_commit_callbacks):
    """call_command with captured output; the on-commit enqueue of a new run is executed."""

    def _run(*args):
        out, err = StringIO(), StringIO()
        with django_capture_on_commit_callbacks(execute=True):
            call_command("bulk_translate", *args, stdout=out, stderr=err)
        return out.getvalue(), err.getvalue()

    return _run


@pytest.fixture
def bad_arguments(run_command):
    """Run a command that must fail with exit code 2; returns the error message."""

    def _bad(*args):
        with pytest.raises(CommandError) as excinfo:
            run_command(*args)
        assert excinfo.value.returncode == 2, excinfo.value
        return str(excinfo.value)

    return _bad


def flush_on_commit() -> None:
    """Run on-commit callbacks the command queued inside the test's transaction."""
    while connection.run_on_commit:
        _savepoints, callback, _robust = connection.run_on_commit.pop(0)
        callback()


@pytest.fixture
def waiting(monkeypatch, task_queue):
    """Replace the command's sleep: ``drain=True`` lets workers run while the command waits."""

    def _configure(*, drain: bool, on_sleep=None):
        sleeps = []

        def sleep(seconds):
            sleeps.append(seconds)
            if drain:
                flush_on_commit()
                task_queue.drain()
            if on_sleep is not None:
                on_sleep()
            time.sleep(0.01)

        fake = types.SimpleNamespace(monotonic=time.monotonic, sleep=sleep)
        monkeypatch.setattr(waiting_module, "time", fake)
        monkeypatch.setattr(controls_module, "time", fake)
        return sleeps

    return _configure


def run_waiting(*args):
    """Call the command with --wait; returns (exit code, stdout, stderr)."""
    return run_exit_code(*args, "--wait")


def run_exit_code(*args):
    """Call the command; returns (exit code, stdout, stderr) (SystemExit and CommandError
    caught: what ``manage.py`` turns into its exit code)."""
    out, err = StringIO(), StringIO()
    code = 0
    try:
        call_command("bulk_translate", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        code = exit_.code
    except CommandError as error:
        code = error.returncode
    return code, out.getvalue(), err.getvalue()


def parser_for_command_line():
    """The parser ``manage.py bulk_translate`` builds (argparse errors exit like the real CLI)."""
    cmd = command_module.Command()
    cmd._called_from_command_line = True
    return cmd.create_parser("manage.py", "bulk_translate")


def parse_error(capsys, *argv):
    with pytest.raises(SystemExit) as excinfo:
        parser_for_command_line().parse_args(list(argv))
    assert excinfo.value.code == 2
    return capsys.readouterr().err
