"""``--as-user``: a command acts with that editor's Wagtail permissions; without it, as the
system (every right)."""

from __future__ import annotations

import pytest
from wagtail.models import Page

from tests import factories as f
from wagtail_bulk_translate.models import Run, UnitStatus

pytestmark = pytest.mark.django_db


def start_args(bilingual, *extra):
    home = str(bilingual.home.pk)
    return ("start", "--subtree", home, "--locales", "fr", "--mode", "overwrite", *extra)


def story_fr(bilingual):
    return Page.objects.filter(translation_key=bilingual.story.translation_key, locale=bilingual.fr)


def test_start_as_an_english_editor_refuses_the_french_pages(
    bilingual, run_command, task_queue, recording_translator
):
    run_command(*start_args(bilingual, "--publish", "publish", "--as-user", "english"))
    task_queue.drain()

    run = Run.objects.get()
    assert run.acting_user == bilingual.english_editor and not run.acts_as_system
    assert set(run.units.values_list("error_code", flat=True)) == {"not_permitted"}
    bilingual.news_fr.refresh_from_db()
    assert bilingual.news_fr.title == "Nouvelles, écrites à la main"
    assert not story_fr(bilingual).exists()
    out, _err = run_command("units", str(run.pk), "--status", "skipped")
    assert "english may not edit its French translation" in out


def test_without_as_user_a_command_acts_as_the_system(
    bilingual, run_command, task_queue, recording_translator
):
    run_command(*start_args(bilingual, "--publish", "publish"))
    task_queue.drain()

    run = Run.objects.get()
    assert run.acts_as_system and run.acting_user is None
    assert story_fr(bilingual).get().live
    assert not run.units.filter(status=UnitStatus.SKIPPED).exists()


def test_the_estimate_counts_what_the_user_may_not_translate_or_publish(
    bilingual, run_command, recording_translator
):
    both = f.editor("both", pages=[bilingual.home, bilingual.home_fr])  # add + change
    out, _err = run_command(
        "start", "--subtree", str(bilingual.home.pk), "--locales", "fr", "--estimate",
        "--as-user", both.username,
    )  # fmt: skip
    assert "You may not publish 3 of the 3 units" in out
    out, _err = run_command(*start_args(bilingual, "--estimate", "--as-user", "english"))
    assert "3 of the 3 units are outside what your Wagtail permissions" in out


def test_retry_and_promote_act_as_the_user_who_asks(
    bilingual, run_command, task_queue, recording_translator
):
    run_command(*start_args(bilingual, "--canary", "3", "--as-user", "english"))
    task_queue.drain()
    canary = Run.objects.get()
    run_command("retry", str(canary.pk), "--as-user", "french")
    assert Run.objects.get(pk=canary.pk).acting_user == bilingual.french_editor
    task_queue.drain()
    run_command("promote", str(canary.pk), "--as-user", "french")
    full = Run.objects.exclude(pk=canary.pk).get()
    assert full.acting_user == bilingual.french_editor


def test_an_unknown_or_inactive_user_is_refused(bilingual, bad_arguments):
    assert "there is no user 'nobody'" in bad_arguments(
        *start_args(bilingual, "--as-user", "nobody")
    )
    bilingual.english_editor.is_active = False
    bilingual.english_editor.save()
    assert "is inactive" in bad_arguments(*start_args(bilingual, "--as-user", "english"))
    assert not Run.objects.exists()
