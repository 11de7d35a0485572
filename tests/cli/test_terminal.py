"""What the commands print holds no terminal control character, whatever a model said."""

from __future__ import annotations

import pytest

from wagtail_bulk_translate.errors import ErrorCode
from wagtail_bulk_translate.management.terminal import terminal_text
from wagtail_bulk_translate.models import UnitStatus

ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\x9b1m\u202eevil\x00"


def test_control_characters_go_newlines_and_tabs_stay():
    assert terminal_text(f"a\tb\n{ESCAPES}c") == "a\tb\n]0;owned[2J[31mred1mevilc"


@pytest.mark.django_db
def test_a_models_words_in_a_unit_message_reach_the_terminal_without_escapes(
    begin, task_queue, run_command
):
    run = begin(locales=["fr"])
    task_queue.drain()
    run.units.filter(pk=run.units.first().pk).update(
        status=UnitStatus.FAILED,
        error_code=ErrorCode.MODEL_REFUSED,
        # The engine records messages without NUL (PostgreSQL's text cannot hold it).
        error_message=f"The model said: {ESCAPES}".replace("\x00", ""),
    )

    for args in (["units", str(run.pk)], ["status", str(run.pk)], ["units", str(run.pk), "--json"]):
        out, err = run_command(*args)
        assert "\x1b" not in out + err and "\x07" not in out + err and "\u202e" not in out
    out, _err = run_command("units", str(run.pk))
    assert "The model said: ]0;owned" in out
