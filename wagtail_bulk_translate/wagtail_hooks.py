"""Wagtail registrations only: the code they register lives in ``wagtail_bulk_translate.admin``."""
