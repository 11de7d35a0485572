"""DeepL, on the official ``deepl`` client: the only package that imports ``deepl``."""

from .translator import DeepLTranslator

__all__ = ["DeepLTranslator"]
