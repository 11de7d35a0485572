"""The model's answers: the structured output asked for, read, and checked.

The answer must be ``{"translations": [{"id": ..., "text": ...}, ...]}`` with the batch's ids,
each once. ``RESPONSE_FORMAT`` says how it is asked for: ``"json_schema"`` (the server enforces
the schema: OpenAI, Azure, vLLM, recent Ollama) or ``"json_object"`` (JSON mode; the shape is
checked here). A batch whose answer cannot be read (:class:`BadAnswer`: invalid JSON, missing
or extra ids, cut short, refused) is split by the translator; a single text that still fails is
refused with the code :func:`BadAnswer.code` gives.

Each translation is then checked (:func:`suspicion`): an answer identical to a prose source, or
far shorter or longer than it, is never returned as a translation (``suspicious_output``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ...errors import ErrorCode

RESPONSE_FORMATS = ("json_schema", "json_object")
DEFAULT_MIN_LENGTH_RATIO = 0.3
DEFAULT_MAX_LENGTH_RATIO = 3.0
# Below this many characters, lengths vary too much between languages to judge ("OK" → "D'accord").
RATIO_MIN_CHARACTERS = 20
# A source with at least this many words is prose: its translation should differ from it.
PROSE_MIN_WORDS = 4
WORD = re.compile(r"[^\W\d_]{2,}")
# Some models wrap JSON-mode answers in a Markdown code fence.
FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)

SCHEMA = {
    "type": "object",
    "properties": {
        "translations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
                "required": ["id", "text"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["translations"],
    "additionalProperties": False,
}


class BadAnswer(Exception):
    """An answer that cannot stand for the batch; ``code`` is the ErrorCode of a single text
    that keeps failing this way, ``words`` what the model said, if anything."""

    def __init__(self, reason: str, code: str = ErrorCode.INVALID_ANSWER, words: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.words = words


@dataclass(frozen=True)
class Bounds:
    min_ratio: float = DEFAULT_MIN_LENGTH_RATIO
    max_ratio: float = DEFAULT_MAX_LENGTH_RATIO


def response_format(mode: str) -> dict[str, Any]:
    if mode == "json_object":
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "json_schema": {"name": "translations", "strict": True, "schema": SCHEMA},
    }


def read(
    content: str | None, finish_reason: str | None, refusal: str | None, ids: list[str]
) -> tuple[dict[str, str], list[str]]:
    """The translations by id, and the ids the answer left out.

    Raises BadAnswer when the answer cannot be used at all (refused, filtered, cut short, not
    JSON of the expected shape, ids that were not asked for).
    """
    if refusal:
        raise BadAnswer("the model refused", ErrorCode.MODEL_REFUSED, refusal)
    if finish_reason == "content_filter":
        raise BadAnswer(
            "the provider's content filter stopped the answer",
            ErrorCode.MODEL_REFUSED,
            content or "(content filter)",
        )
    if finish_reason == "length":
        raise BadAnswer("the answer was cut short (output token limit)", ErrorCode.TOO_LARGE)
    fenced = FENCE.match(content or "")
    try:
        data = json.loads(fenced.group(1) if fenced else content or "")
    except ValueError as err:
        raise BadAnswer(f"the answer is not JSON ({err})", words=(content or "")[:200]) from err
    entries = data.get("translations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise BadAnswer("the answer has no list of translations", words=(content or "")[:200])
    found: dict[str, str] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise BadAnswer(f"malformed translation entry {entry!r}"[:200])
        found[str(entry.get("id"))] = entry["text"]
    extra = sorted(set(found) - set(ids))
    if extra:
        raise BadAnswer(f"the answer has ids that were not asked for: {', '.join(extra)}")
    return found, [i for i in ids if i not in found]


def is_prose(text: str) -> bool:
    return len(WORD.findall(text)) >= PROSE_MIN_WORDS


def suspicion(source: str, translated: str, bounds: Bounds) -> str | None:
    """Why ``translated`` (plain text) does not look like a translation of ``source``, or None."""
    if not translated.strip() and source.strip():
        return "the answer is empty"
    if is_prose(source) and " ".join(translated.split()) == " ".join(source.split()):
        return "the answer is the source text, untranslated"
    if len(source) >= RATIO_MIN_CHARACTERS:
        ratio = len(translated) / len(source)
        if not bounds.min_ratio <= ratio <= bounds.max_ratio:
            return (
                f"the answer is {ratio:.2f} times as long as the source (allowed: "
                f"{bounds.min_ratio} to {bounds.max_ratio}, MIN_LENGTH_RATIO/MAX_LENGTH_RATIO)"
            )
    return None
