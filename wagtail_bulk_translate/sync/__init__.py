"""Automatic sync: translations follow their source on publish, through the same engine.

``receivers.py`` records a change when a synced source is published (or a translatable snippet
saved): one :class:`~wagtail_bulk_translate.models.PendingChange` row per object, so bursts
coalesce, and one delayed task per burst. ``dispatch.py`` (that task) starts one automatic run
for the changes whose window has passed, leaving those a run still holds, or whose site is
paused, for later. ``configuration.py`` says what is synced, ``switch.py`` pauses and resumes,
``status.py`` reports for the admin and the command line.
"""
