"""One translate_texts() call: protect the markup, pack, ask, read, check, split what fails.

What fails and what happens to it:

* a context-length error, an unreadable answer (invalid JSON, an id not asked for), a cut-short
  answer, a refusal or a content-filter stop: the batch is split in two and the halves sent;
  a single text is sent once more alone, then refused (``too_large``, ``invalid_answer``,
  ``model_refused``);
* ids the answer left out: the answered ones are kept (never paid for again), the others sent
  again the same way;
* broken placeholders in one translation: the text is sent once more (with the other broken
  ones), then refused as ``invalid_markup``;
* a translation identical to a prose source, or far shorter or longer than it: refused as
  ``suspicious_output``, with the model's words in the message.

Provider failures (quota, authentication, rate limits after retries) are raised; the error's
``partial`` holds what earlier requests of the call translated and cost.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import ErrorCode
from ..base import Refusal, Spend, TextContext, Translations
from ..inline_markup import with_whitespace_of
from . import answers, packing, prompt
from .markup import BrokenMarkup, Protected, plain_text, protect, restored

if TYPE_CHECKING:
    from .http import Answer

logger = logging.getLogger(__name__)

QUOTED_WORDS = 300  # characters of the model's answer quoted in a refusal message


class CallTranslator(Protocol):
    """What a call needs of its translator (``LLMTranslator`` is one): said here, so this
    module does not import the translator that imports it."""

    options: dict[str, Any]

    def glossary(self, source_code: str, target_code: str) -> prompt.Glossary: ...

    def limits(self) -> tuple[int, int]: ...

    def bounds(self) -> answers.Bounds: ...

    def spend_of(self, prompt_tokens: int, completion_tokens: int) -> Spend: ...

    def request(self, messages: list[dict[str, str]]) -> Answer | None: ...


class TranslateCall:
    def __init__(
        self,
        translator: CallTranslator,
        source_code: str,
        target_code: str,
        context: Mapping[str, TextContext] | None,
    ) -> None:
        self.translator = translator
        self.source_code, self.target_code = source_code, target_code
        self.context = context or {}
        self.done: dict[str, str] = {}
        self.failed: dict[str, Refusal] = {}
        self.billed: dict[str, int] = {}
        self.spend = Spend()
        self.bodies: dict[str, list[str]] = {}  # text without its surrounding whitespace → texts
        self.protected: dict[str, Protected] = {}
        self.broken: dict[str, str] = {}  # bodies whose placeholders broke → what broke
        self.second_markup_try = False
        self.glossary = translator.glossary(source_code, target_code)

    def result(self) -> Translations:
        return Translations(dict(self.done), dict(self.billed), dict(self.failed), self.spend)

    def run(self, texts: list[str]) -> None:
        for text in dict.fromkeys(texts):
            body = text.strip()
            if body:
                self.bodies.setdefault(body, []).append(text)
            else:
                self.done[text] = text  # nothing to translate, nothing to pay
        self.protected = {body: protect(body) for body in self.bodies}
        for batch in self.batches(list(self.bodies)):
            self.send(batch)
        if self.broken:
            logger.info("The model broke the markup of %d text(s); retrying once", len(self.broken))
            self.second_markup_try = True
            for batch in self.batches(list(self.broken)):
                self.send(batch)

    def batches(self, bodies: list[str]) -> list[list[str]]:
        max_characters, max_texts = self.translator.limits()
        return packing.pack(bodies, self.body_context(), self.protected, max_characters, max_texts)

    def body_context(self) -> dict[str, TextContext]:
        found = {}
        for body, texts in self.bodies.items():
            where = next((self.context[t] for t in texts if t in self.context), None)
            if where is not None:
                found[body] = where
        return found

    # --- one request -------------------------------------------------------------------------

    def messages(self, ids: Mapping[str, str]) -> list[dict[str, str]]:
        docs = packing.documents(ids, self.body_context(), self.protected)
        texts = [self.protected[body].text for body in ids]
        return prompt.messages(
            self.translator.options,
            self.source_code,
            self.target_code,
            self.glossary.occurring_in(texts),
            docs,
        )

    def send(self, batch: list[str], retried: bool = False) -> None:
        ids = {body: str(number) for number, body in enumerate(batch, start=1)}
        answer = self.translator.request(self.messages(ids))
        if answer is None:  # the request does not fit the model's context window
            too_long = answers.BadAnswer("too long for the model's context", ErrorCode.TOO_LARGE)
            self.fail(batch, too_long, retried or len(batch) == 1)
            return
        self.pay(batch, answer)
        try:
            found, missing = answers.read(
                answer.content, answer.finish_reason, answer.refusal, list(ids.values())
            )
        except answers.BadAnswer as bad:
            self.fail(batch, bad, retried)
            return
        for body, item_id in ids.items():
            if item_id in found:
                self.accept(body, found[item_id])
        left_out = [body for body, item_id in ids.items() if item_id in missing]
        if left_out:
            self.fail(left_out, answers.BadAnswer("the answer left this text out"), retried)

    def pay(self, batch: list[str], answer: Any) -> None:
        self.spend += self.translator.spend_of(answer.prompt_tokens, answer.completion_tokens)
        for body in batch:
            # Paid for (in tokens, in ``spend``): no character is billed.
            self.billed.setdefault(self.bodies[body][0], 0)

    def fail(self, batch: list[str], bad: answers.BadAnswer, retried: bool) -> None:
        """Split a batch whose answer failed; send a single text once more; then refuse it."""
        if len(batch) > 1:
            half = len(batch) // 2
            logger.info("Splitting a batch of %d texts: %s", len(batch), bad.reason)
            self.send(batch[:half], retried)
            self.send(batch[half:], retried)
        elif not retried:
            self.send(batch, retried=True)
        else:
            message = f"The language model's answer could not be used: {bad.reason}."
            if bad.words:
                message += f' The model said: "{bad.words[:QUOTED_WORDS]}"'
            self.refuse(batch[0], bad.code, message)

    # --- one translation ---------------------------------------------------------------------

    def accept(self, body: str, answer: str) -> None:
        try:
            html = restored(self.protected[body], answer)
        except BrokenMarkup as err:
            if not self.second_markup_try:
                self.broken[body] = str(err)
                return
            self.refuse(
                body,
                ErrorCode.INVALID_MARKUP,
                "The language model broke the inline markup (links or formatting) of this text "
                f'twice ({err}): {body[:80]!r}. The model said: "{answer[:QUOTED_WORDS]}"',
            )
            return
        problem = answers.suspicion(plain_text(body), plain_text(html), self.translator.bounds())
        if problem:
            self.refuse(
                body,
                ErrorCode.SUSPICIOUS_OUTPUT,
                f"The language model's answer does not look like a translation ({problem}). "
                f'The model said: "{answer[:QUOTED_WORDS]}"',
            )
            return
        for text in self.bodies[body]:
            self.done[text] = with_whitespace_of(text, html)
            self.failed.pop(text, None)

    def refuse(self, body: str, code: str, message: str) -> None:
        for text in self.bodies[body]:
            if text not in self.done:
                self.failed[text] = Refusal(code, message)
