"""The language-model translator's side of the Batch API (``BATCH`` option): build a run's
requests as batch lines, submit them, ask how they are doing, read their answers, cancel.

Through the official ``openai`` client (:mod:`.http_batches`); the engine's side is
:mod:`wagtail_bulk_translate.engine.provider_batches`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..base import TextContext, Translations
from ..options import option_number as read_option_number
from . import batches

if TYPE_CHECKING:
    from wagtail.models import Locale

    from .http import Answer

WHO = "The language-model translator"


class BatchAPI:
    """Mixed into :class:`.translator.LLMTranslator` (which gives ``options`` and
    ``client()``)."""

    options: dict[str, Any]

    def client(self) -> Any:
        raise NotImplementedError

    @property
    def submits_batches(self) -> bool:
        return bool(self.options.get("BATCH"))

    @property
    def batch_window(self) -> str:
        return str(self.options.get("BATCH_WINDOW") or "24h")

    def batch_price_factor(self) -> float:
        return read_option_number(self.options, "BATCH_PRICE_FACTOR", 0.5, float, WHO)

    def batch_lines(
        self,
        source_locale: Locale,
        target_locale: Locale,
        texts: list[str],
        context: Mapping[str, TextContext] | None = None,
    ) -> list[dict[str, Any]]:
        return batches.batch_lines(
            self,  # type: ignore[arg-type]
            source_locale.language_code,
            target_locale.language_code,
            texts,
            context,
        )

    def submit_batch(self, lines: list[dict[str, Any]], token: str) -> tuple[str, str]:
        """Submit the lines as one provider batch; returns (batch id, input file id)."""
        from . import http_batches

        url = self.batch_url()
        requests = [
            {"custom_id": line["custom_id"], "method": "POST", "url": url, "body": line["body"]}
            for line in lines
        ]
        return http_batches.submit(
            self.client(),
            requests,
            endpoint=self.batch_url(),
            window=self.batch_window,
            metadata={http_batches.TOKEN_KEY: token},
        )

    def batch_url(self) -> str:
        return str(self.options.get("BATCH_ENDPOINT") or "/v1/chat/completions")

    def find_batch(self, token: str) -> str | None:
        from . import http_batches

        return http_batches.find_batch(self.client(), token)

    def batch_status(self, batch_id: str) -> Any:
        from . import http_batches

        return http_batches.status(self.client(), batch_id)

    def cancel_batch(self, batch_id: str) -> None:
        from . import http_batches

        http_batches.cancel(self.client(), batch_id)

    def batch_answers(
        self, source_locale: Locale, target_locale: Locale, lines: list[dict], status: Any
    ) -> tuple[Translations, set[str]]:
        """The batch's translations, and the custom ids the provider answered."""
        from . import http_batches

        found: dict[str, Answer | None] = {}
        for file_id in (status.output_file_id, status.error_file_id):
            for line in http_batches.result_lines(self.client(), file_id):
                found[str(line.get("custom_id"))] = http_batches.answer_of_line(line)
        answered = {cid for cid, answer in found.items() if answer is not None}
        result = batches.read_answers(
            self,  # type: ignore[arg-type]
            source_locale.language_code,
            target_locale.language_code,
            lines,
            found,
            self.batch_price_factor(),
        )
        return result, answered
