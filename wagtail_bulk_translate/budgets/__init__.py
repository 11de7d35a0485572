"""Budgets: spending caps per run, per calendar day and per calendar month.

``periods.py`` says when a day or a month starts and ends, ``caps.py`` reads the caps that apply
to a run from ``WAGTAIL_BULK_TRANSLATE['BUDGETS']`` and the admin's caps over them,
``editing.py`` sets and removes the admin's caps, ``spending.py`` sums what was spent against
each cap from the billing ledger, ``enforcement.py`` reserves each translator request's spend
before it goes out (or refuses it: the run pauses with ``budget_exceeded``), and ``report.py``
says what is left of each budget (the preflight, a run's status, the Budgets screen).
"""
