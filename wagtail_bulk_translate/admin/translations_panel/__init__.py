"""The editor's "Translations" side panel and its "Translate now" view."""
