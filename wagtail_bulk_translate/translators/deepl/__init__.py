"""DeepL, on the official ``deepl`` client: the only package that imports ``deepl``."""

from .translator import DeepLTranslator, DeepLUsage

__all__ = ["DeepLTranslator", "DeepLUsage"]
