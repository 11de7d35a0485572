"""Machine-translate a whole Wagtail site into many locales in the background."""

__version__ = "0.1.0"
