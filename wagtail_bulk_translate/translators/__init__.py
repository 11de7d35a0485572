"""Machine translators usable by bulk translation runs (and by wagtail-localize's editor)."""
