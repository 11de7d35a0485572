"""The glossary's admin: terms (with CSV import and export), house style per locale, and the
state of the DeepL glossaries synced from them, in one "Glossary" menu.

A folder of its own (not files in ``admin/views/``) because it is a second menu with its own
viewsets, permission policy, log actions and templates; the runs screens stay as they were.
"""
