"""A language model through any OpenAI-compatible server: the only package that imports
``openai`` (in :mod:`.http`, loaded on the first request, so the translator can say the package
is missing instead of failing to import)."""

from .translator import LLMTranslator

__all__ = ["LLMTranslator"]
