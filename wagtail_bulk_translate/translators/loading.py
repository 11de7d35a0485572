"""Which machine translator a run uses, pinned on the run without its secrets."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

from ..conf import get_settings
from .base import BulkTranslator, ConfigurationProblem, as_bulk_translator

PSEUDO_TRANSLATOR = "wagtail_bulk_translate.translators.pseudo.PseudoTranslator"
SECRET_MARKERS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIALS")


def configured_translator() -> dict[str, Any]:
    """The translator new runs use: ours, else wagtail-localize's, else the pseudo translator."""
    config = get_settings().TRANSLATOR or getattr(
        settings, "WAGTAILLOCALIZE_MACHINE_TRANSLATOR", None
    )
    if not config:
        return {"CLASS": PSEUDO_TRANSLATOR, "OPTIONS": {}}
    return {"CLASS": config["CLASS"], "OPTIONS": dict(config.get("OPTIONS") or {})}


def is_secret(option: str) -> bool:
    return any(marker in option.upper() for marker in SECRET_MARKERS)


def pinned_translator() -> tuple[str, dict[str, Any]]:
    """Class path and options to store on a new run; secrets stay in settings only."""
    config = configured_translator()
    public = {k: v for k, v in config["OPTIONS"].items() if not is_secret(k)}
    return config["CLASS"], public


def build_translator(class_path: str, pinned_options: dict[str, Any]) -> BulkTranslator:
    """Instantiate a run's translator: pinned options plus today's secrets for that class."""
    config = configured_translator()
    secrets = {}
    if config["CLASS"] == class_path:
        secrets = {k: v for k, v in config["OPTIONS"].items() if is_secret(k)}
    translator_class = import_string(class_path)
    return as_bulk_translator(translator_class({**pinned_options, **secrets}))


def configuration_problems(class_path: str, options: dict[str, Any]) -> list[ConfigurationProblem]:
    """What the translator class says is wrong with its options (none for other translators)."""
    translator_class = import_string(class_path)
    if isinstance(translator_class, type) and issubclass(translator_class, BulkTranslator):
        return translator_class.configuration_problems(options)
    return []
