"""The edge of the ``openai`` client for the Batch API: files and batches.

A batch is a JSONL file of Chat Completions requests, uploaded (``purpose="batch"``) and
submitted with a completion window; the provider answers within it at a lower price. The
batch's ``metadata`` carries the plugin's token for it, so a submission whose worker died can be
found again (:func:`find_batch`) instead of being sent twice. Every client exception leaves
this module as one of the plugin's errors (:func:`.http.translator_error`).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

import openai

from .http import Answer, client_credentials, translator_error

TOKEN_KEY = "wbt_token"
# Batches a search for a lost submission reads, newest first (100 a page).
SEARCH_LIMIT = 500
DONE = ("completed", "expired", "failed", "cancelled")


@dataclass(frozen=True)
class BatchStatus:
    """What the provider says of a batch."""

    status: str  # validating, in_progress, finalizing, completed, expired, failed, ...
    output_file_id: str | None
    error_file_id: str | None
    message: str = ""

    @property
    def done(self) -> bool:
        return self.status in DONE


def submit(
    client: openai.OpenAI,
    lines: list[dict[str, Any]],
    *,
    endpoint: str,
    window: str,
    metadata: dict[str, str],
) -> tuple[str, str]:
    """Upload the requests and create their batch; returns (batch id, input file id)."""
    payload = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    try:
        uploaded = client.files.create(
            file=("requests.jsonl", io.BytesIO(payload.encode())), purpose="batch"
        )
        batch = client.batches.create(
            input_file_id=uploaded.id,
            endpoint=endpoint,  # type: ignore[arg-type]
            completion_window=window,  # type: ignore[arg-type]
            metadata=metadata,
        )
    except openai.OpenAIError as err:
        raise translator_error(err, client_credentials(client)) from err
    return batch.id, uploaded.id


def find_batch(client: openai.OpenAI, token: str) -> str | None:
    """The id of the batch submitted with ``token`` in its metadata (None: never submitted)."""
    try:
        for seen, batch in enumerate(client.batches.list(limit=100)):
            if (batch.metadata or {}).get(TOKEN_KEY) == token:
                return batch.id
            if seen >= SEARCH_LIMIT:
                break
    except openai.OpenAIError as err:
        raise translator_error(err, client_credentials(client)) from err
    return None


def status(client: openai.OpenAI, batch_id: str) -> BatchStatus:
    try:
        batch = client.batches.retrieve(batch_id)
    except openai.OpenAIError as err:
        raise translator_error(err, client_credentials(client)) from err
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    message = "; ".join(f"{e.code}: {e.message}" for e in errors if e is not None)
    return BatchStatus(batch.status, batch.output_file_id, batch.error_file_id, message)


def result_lines(client: openai.OpenAI, file_id: str | None) -> list[dict[str, Any]]:
    """The JSONL lines of a batch's output or error file (none without a file)."""
    if not file_id:
        return []
    try:
        text = client.files.content(file_id).text
    except openai.OpenAIError as err:
        raise translator_error(err, client_credentials(client)) from err
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def cancel(client: openai.OpenAI, batch_id: str) -> None:
    try:
        client.batches.cancel(batch_id)
    except openai.APIStatusError as err:
        if err.status_code != 409:  # already finished: nothing left to cancel
            raise translator_error(err, client_credentials(client)) from err
    except openai.OpenAIError as err:
        raise translator_error(err, client_credentials(client)) from err


def answer_of_line(line: dict[str, Any]) -> Answer | None:
    """The answer of one output line (None: the request failed at the provider)."""
    response = line.get("response") or {}
    body = response.get("body") or {}
    if response.get("status_code") != 200 or not isinstance(body, dict):
        return None
    choices = body.get("choices") or [{}]
    message = choices[0].get("message") or {}
    usage = body.get("usage") or {}
    return Answer(
        content=message.get("content"),
        finish_reason=choices[0].get("finish_reason"),
        refusal=message.get("refusal"),
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
    )
