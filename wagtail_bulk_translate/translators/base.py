"""The translator contract: what the engine asks of a machine translator, typed.

A translator is a wagtail-localize machine translator (so the editor's "Machine translate"
button can use it too) that also answers the engine's questions:

* :meth:`BulkTranslator.translate_texts`: inline-HTML texts in, a :class:`Translations` out —
  the translation of each text it translated, the characters billed for each, and the texts
  it refused one by one with a reason (too large, broken markup) so only their units fail.
  Provider failures raise a :class:`~wagtail_bulk_translate.errors.TranslatorError` subclass;
  one raised part-way carries ``partial``: what earlier requests translated and were billed.
* :meth:`BulkTranslator.request_batches`: how texts are split into provider requests; the
  engine calls :meth:`translate_texts` once per batch and stores each answer at once, so a
  crash loses (and pays again for) at most one request.
* :meth:`BulkTranslator.can_translate`: whether a locale pair is supported (no network call).
* :meth:`BulkTranslator.usage`: characters used and the limit of the account, if it has one.
* :meth:`BulkTranslator.configuration_problems`: what is wrong with its options, for the
  system checks, without building it or touching the network.
* :meth:`BulkTranslator.estimate_spend`: tokens and money a set of texts would cost, before
  anything is sent (None: the translator bills characters, priced by the run's settings).
* :meth:`BulkTranslator.output_signature`: a hash of everything besides the source text that
  shapes its output (model, prompt, instructions, glossary); a change makes the translations
  it wrote outdated.

Translators that read documents (a language model) set :attr:`BulkTranslator.reads_context`:
the engine then passes ``context=``, a :class:`TextContext` per text (the object it comes from,
its field or block, its place in the document), to :meth:`~BulkTranslator.request_batches` and
:meth:`~BulkTranslator.translate_texts`. Others are called exactly as before. A translator that
pays by the token reports each call's :class:`Spend` in :attr:`Translations.spend`.

Any other wagtail-localize translator works through :func:`as_bulk_translator` (nothing
billed, nothing refused, no usage).
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wagtail_localize.machine_translators.base import BaseMachineTranslator
from wagtail_localize.strings import StringValue

if TYPE_CHECKING:
    from wagtail.models import Locale


# Texts per translate_texts() call for translators that do not say how they batch.
DEFAULT_TEXTS_PER_REQUEST = 50


@dataclass(frozen=True)
class Usage:
    """Characters translated this billing period and the account's limit (None: unknown)."""

    characters_used: int | None
    character_limit: int | None

    @property
    def remaining(self) -> int | None:
        if self.character_limit is None or self.characters_used is None:
            return None
        return max(self.character_limit - self.characters_used, 0)

    def as_dict(self) -> dict[str, int | None]:
        return {
            "characters_used": self.characters_used,
            "character_limit": self.character_limit,
            "remaining": self.remaining,
        }


@dataclass(frozen=True)
class Refusal:
    """A text the translator would not translate; ``code`` is an ``ErrorCode`` value."""

    code: str
    message: str


@dataclass(frozen=True)
class TextContext:
    """Where a text comes from, so a translator that reads documents sees it in place.

    Texts are sent once per locale, so a text found in several objects carries the context of
    the first object that needs it.
    """

    object_key: str  # groups one object's texts, e.g. "wagtailcore.page:12"
    object_type: str  # the model's verbose name, e.g. "blog page"
    object_title: str  # "" when the object has no title
    object_url: str  # a page's URL path, "" for other objects
    field: str  # the field or block's label ("Body > Paragraph"), its path when it has none
    position: int  # the text's place in its object, in document order


@dataclass
class Spend:
    """What calls to a translator that pays by the token cost (0 where unknown)."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # in the run's CURRENCY, from the translator's price table

    def __add__(self, other: Spend) -> Spend:
        return Spend(
            self.requests + other.requests,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost + other.cost,
        )


@dataclass
class Translations:
    """What one :meth:`BulkTranslator.translate_texts` call produced."""

    texts: dict[str, str] = field(default_factory=dict)  # source text → translation
    billed_characters: dict[str, int] = field(default_factory=dict)  # source text → billed
    refused: dict[str, Refusal] = field(default_factory=dict)  # source text → why not
    spend: Spend | None = None  # tokens and money, for translators that pay by the token
    # Source text → times it went out in a request whose answer was lost (a timeout, a
    # connection dropped after sending) before the call sent it again: maybe billed.
    unanswered: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ConfigurationProblem:
    message: str
    hint: str


class BulkTranslator(BaseMachineTranslator, metaclass=ABCMeta):
    """Base class of the plugin's translators (see the module docstring)."""

    #: The translator profile it was built for (``translators.loading.build_translator``);
    #: None when something else built it (wagtail-localize's own button).
    profile: str | None = None

    # Whether runs send its requests as provider batches (a language model's Batch API:
    # ``engine.provider_batches``); such a translator also has ``batch_lines()``,
    # ``submit_batch()``, ``find_batch()``, ``batch_status()``, ``batch_answers()`` and
    # ``cancel_batch()`` (see ``translators.llm.batch_api``).
    @property
    def submits_batches(self) -> bool:
        return False

    #: Whether request_batches() and translate_texts() take ``context=`` ({text: TextContext}).
    reads_context: bool = False

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(dict(options or {}))

    @abstractmethod
    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        """Translate inline-HTML texts; texts refused one by one are in ``refused``."""

    def request_batches(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> list[list[str]]:
        """Split ``texts`` into the batches one provider request each would carry."""
        size = DEFAULT_TEXTS_PER_REQUEST
        return [texts[i : i + size] for i in range(0, len(texts), size)]

    @abstractmethod
    def can_translate(self, source_locale: Locale, target_locale: Locale) -> bool: ...

    def translate(
        self, source_locale: Locale, target_locale: Locale, strings: Iterable[StringValue]
    ) -> dict[StringValue, StringValue]:
        """wagtail-localize's interface, in terms of :meth:`translate_texts`."""
        strings = list(strings)
        result = self.translate_texts(source_locale, target_locale, [s.data for s in strings])
        return {s: StringValue(result.texts[s.data]) for s in strings if s.data in result.texts}

    def usage(self) -> Usage | None:
        """The account's usage, or None when the translator has no such notion."""
        return None

    def estimate_spend(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> Spend | None:
        """Tokens and money these texts would cost (no network call); None: billed by the
        character, priced with ``PRICE_PER_MILLION_CHARACTERS``."""
        return None

    def output_signature(self, source_locale: Locale, target_locale: Locale) -> str:
        """A hash of what shapes the output besides the text ("": nothing does)."""
        return ""

    @classmethod
    def configuration_problems(cls, options: dict[str, Any]) -> list[ConfigurationProblem]:
        """What is wrong with these options (no network call)."""
        return []

    @classmethod
    def longest_call_seconds(cls, options: dict[str, Any]) -> float | None:
        """How long one translate_texts() call may take with these options, its timeouts and
        retries included (None: unbounded or unknown); a unit's lease must outlast it."""
        return None


class LocalizeTranslator(BulkTranslator):
    """Any other wagtail-localize machine translator, seen through the contract."""

    def __init__(self, translator: BaseMachineTranslator) -> None:
        super().__init__(translator.options)
        self.translator = translator
        self.display_name = translator.display_name

    def translate_texts(
        self, source_locale: Locale, target_locale: Locale, texts: list[str]
    ) -> Translations:
        raw = self.translator.translate(source_locale, target_locale, map(StringValue, texts))
        return Translations({k.data: v.data for k, v in raw.items() if v is not None})

    def can_translate(self, source_locale: Locale, target_locale: Locale) -> bool:
        return self.translator.can_translate(source_locale, target_locale)


def as_bulk_translator(translator: BaseMachineTranslator) -> BulkTranslator:
    if isinstance(translator, BulkTranslator):
        return translator
    return LocalizeTranslator(translator)
